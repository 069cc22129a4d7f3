// Speed.cs -- the five workloads of DESIGN.md through MessagePack-CSharp
// (typed [Key] classes and ContractlessStandardResolver) and MemoryPack,
// encode and decode. Owns: the C# shapes of the workloads and a Stopwatch
// harness (warm-up, then rounds of ~SP_DOTNET_SAMPLE_MS each, median and
// best ns/op). Must not touch: tests. Not a test: bench/peer-dotnet.sh.
//
// Why not BenchmarkDotNet: it launches a process per benchmark and runs
// pilot, warm-up and ~15-100 iterations each; for 5 workloads x 2 resolvers x
// 2 directions + MemoryPack on a 2-core machine shared by other jobs that
// is tens of minutes, and scratchpack's own benches (bench/) use the same
// warm-up + rounds + median method, so the figures compare like with like.
using System.Diagnostics;
using MemoryPack;
using MessagePack;
using MessagePack.Resolvers;

namespace Peer;

[MessagePackObject] [MemoryPackable]
public partial class AObj
{
    [Key("Id")] public int Id;
    [Key("Name")] public string Name = "";
}

[MessagePackObject] [MemoryPackable]
public partial class Rec
{
    [Key("id")] public int id;
    [Key("name")] public string name = "";
    [Key("score")] public double score;
    [Key("tags")] public string[] tags = [];
}

[MessagePackObject] [MemoryPackable]
public partial class BigObj
{
    [Key("Id")] public int Id;
    [Key("Text")] public string Text = "";
}

// The same shapes without attributes, for ContractlessStandardResolver.
public class AObjC { public int Id { get; set; } public string Name { get; set; } = ""; }
public class RecC
{
    public int id { get; set; }
    public string name { get; set; } = "";
    public double score { get; set; }
    public string[] tags { get; set; } = [];
}
public class BigObjC { public int Id { get; set; } public string Text { get; set; } = ""; }

public static class Speed
{
    public sealed record Result(string Workload, string Library, string Mode, string Op, int Bytes, double MedianNs, double BestNs);

    static readonly MessagePackSerializerOptions Contractless = MessagePackSerializerOptions.Standard.WithResolver(ContractlessStandardResolver.Instance);

    static double Sample(Action a, double ms)
    {
        // Calibrate a batch of about ms milliseconds, then time it.
        int n = 1;
        var sw = Stopwatch.StartNew();
        while (true)
        {
            sw.Restart();
            for (int i = 0; i < n; i++) a();
            sw.Stop();
            if (sw.Elapsed.TotalMilliseconds >= ms / 4 || n > 1 << 24) break;
            n *= 2;
        }
        int batch = Math.Max(1, (int)(n * (ms / Math.Max(0.001, sw.Elapsed.TotalMilliseconds))));
        sw.Restart();
        for (int i = 0; i < batch; i++) a();
        sw.Stop();
        return sw.Elapsed.TotalMilliseconds * 1e6 / batch;
    }

    static string Text(Random r, int n, bool korean)
    {
        var c = new char[n];
        for (int i = 0; i < n; i++) c[i] = korean && i % 5 != 0 ? (char)r.Next(0xac00, 0xd7a4) : (char)r.Next('a', 'z' + 1);
        return new string(c);
    }

    // The typed values of the five workloads (one seed: the same in every run).
    static (AObj aobj, Rec[] recs, int[] ints, string[] strings, BigObj big) Values()
    {
        var r = new Random(1);
        var recs = Enumerable.Range(0, 1000).Select(i => new Rec { id = i, name = $"user-{i * 7919:D11}", score = i * 0.5 + 0.25, tags = ["red", "green", "blue"] }).ToArray();
        var strings = Enumerable.Range(0, 10_000).Select(i => Text(r, r.Next(20, 201), i % 4 == 0)).ToArray();
        return (new AObj { Id = 1, Name = "hello" }, recs, Enumerable.Range(0, 30_000).ToArray(), strings,
            new BigObj { Id = 1, Text = new string('A', 100_000) });
    }

    /// <summary>Writes each workload's typed MessagePack bytes to DIR/NAME.bin, so that
    /// bench/dotnet-js.mjs runs the JS package on exactly the messages C# measured.</summary>
    public static void WriteBytes(string dir)
    {
        Directory.CreateDirectory(dir);
        var v = Values();
        File.WriteAllBytes(Path.Combine(dir, "a.obj.bin"), MessagePackSerializer.Serialize(v.aobj));
        File.WriteAllBytes(Path.Combine(dir, "b.records.bin"), MessagePackSerializer.Serialize(v.recs));
        File.WriteAllBytes(Path.Combine(dir, "c.ints.bin"), MessagePackSerializer.Serialize(v.ints));
        File.WriteAllBytes(Path.Combine(dir, "d.strings.bin"), MessagePackSerializer.Serialize(v.strings));
        File.WriteAllBytes(Path.Combine(dir, "e.big.bin"), MessagePackSerializer.Serialize(v.big));
    }

    public static List<Result> Run(int rounds, double sampleMs)
    {
        var (aobj0, recs0, ints0, strings0, big0) = Values();
        var aobj = aobj0;
        var aobjC = new AObjC { Id = 1, Name = "hello" };
        var recs = recs0;
        var recsC = recs.Select(x => new RecC { id = x.id, name = x.name, score = x.score, tags = x.tags }).ToArray();
        var ints = ints0;
        var strings = strings0;
        var big = big0;
        var bigC = new BigObjC { Id = 1, Text = big.Text };

        var cases = new List<(string W, string Lib, string Mode, string Op, Func<int> Bytes, Action A)>();
        void Msgpack<T>(string w, string mode, T v, MessagePackSerializerOptions o)
        {
            byte[] b = MessagePackSerializer.Serialize(v, o);
            cases.Add((w, "MessagePack-CSharp", mode, "encode", () => b.Length, () => MessagePackSerializer.Serialize(v, o)));
            cases.Add((w, "MessagePack-CSharp", mode, "decode", () => b.Length, () => MessagePackSerializer.Deserialize<T>(b, o)));
        }
        void Mempack<T>(string w, T v)
        {
            byte[] b = MemoryPackSerializer.Serialize(v);
            cases.Add((w, "MemoryPack", "typed (own format)", "encode", () => b.Length, () => MemoryPackSerializer.Serialize(v)));
            cases.Add((w, "MemoryPack", "typed (own format)", "decode", () => b.Length, () => MemoryPackSerializer.Deserialize<T>(b)));
        }
        var std = MessagePackSerializerOptions.Standard;
        Msgpack("a.obj", "typed [Key]", aobj, std); Msgpack("a.obj", "contractless", aobjC, Contractless); Mempack("a.obj", aobj);
        Msgpack("b.records", "typed [Key]", recs, std); Msgpack("b.records", "contractless", recsC, Contractless); Mempack("b.records", recs);
        Msgpack("c.ints", "typed int[]", ints, std); Msgpack("c.ints", "contractless (object)", (object)ints, Contractless); Mempack("c.ints", ints);
        Msgpack("d.strings", "typed string[]", strings, std); Mempack("d.strings", strings);
        Msgpack("e.big", "typed [Key]", big, std); Msgpack("e.big", "contractless", bigC, Contractless); Mempack("e.big", big);

        foreach (var c in cases) for (int i = 0; i < 3; i++) Sample(c.A, sampleMs / 2);   // warm-up (tiering)
        var samples = cases.Select(_ => new List<double>()).ToArray();
        for (int round = 0; round < rounds; round++)
            for (int k = 0; k < cases.Count; k++) samples[k].Add(Sample(cases[k].A, sampleMs));   // interleaved
        var results = new List<Result>();
        for (int k = 0; k < cases.Count; k++)
        {
            var s = samples[k].OrderBy(x => x).ToList();
            results.Add(new(cases[k].W, cases[k].Lib, cases[k].Mode, cases[k].Op, cases[k].Bytes(), s[s.Count / 2], s[0]));
        }
        return results;
    }

    public static void Print(List<Result> results)
    {
        Console.WriteLine($"{"workload",-10} {"library",-19} {"mode",-22} {"op",-6} {"bytes",9} {"median ns/op",13} {"best",11} {"MB/s",8}");
        foreach (var x in results)
            Console.WriteLine($"{x.Workload,-10} {x.Library,-19} {x.Mode,-22} {x.Op,-6} {x.Bytes,9} {x.MedianNs,13:F1} {x.BestNs,11:F1} {x.Bytes / x.MedianNs * 1e3,8:F0}");
    }
}
