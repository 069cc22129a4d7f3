// Speed.cs -- the five workloads of DESIGN.md through MessagePack-CSharp
// (typed [Key] classes and ContractlessStandardResolver) and MemoryPack,
// encode and decode. Owns: the C# shapes of the workloads and a Stopwatch
// harness (warm-up, then rounds of ~SP_DOTNET_SAMPLE_MS each, median and
// best ns/op), and `serve`, the C# peer of bench/dotnet-side.mjs's rounds.
// Must not touch: tests. Not a test: bench/peer-dotnet.sh.
//
// Why not BenchmarkDotNet: it launches a process per benchmark and runs
// pilot, warm-up and ~15-100 iterations each; for 5 workloads x 2 resolvers x
// 2 directions + MemoryPack on a 2-core machine shared by other jobs that
// is tens of minutes, and scratchpack's own benches (bench/) use the same
// warm-up + rounds + median method, so the figures compare like with like.
using System.Diagnostics;
using System.Runtime.InteropServices;
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

    // The clock samples are read from, in ms: wall time (Stopwatch) by
    // default; `serve` switches to the process's CPU time, so that time the
    // process spends waiting for a loaded machine's CPU is not charged to
    // it (every peer of bench/dotnet-side.mjs reads the same kind of clock).
    static Func<double> nowMs = () => Stopwatch.GetTimestamp() * 1e3 / Stopwatch.Frequency;

    [StructLayout(LayoutKind.Sequential)]
    struct Timespec { public long Sec; public long Nsec; }
    [DllImport("libc", EntryPoint = "clock_gettime")]
    static extern int ClockGettime(int clock, out Timespec t);
    // Linux: CLOCK_PROCESS_CPUTIME_ID (every thread: the GC's too), or with
    // SP_DOTNET_CLOCK=thread CLOCK_THREAD_CPUTIME_ID (the calling thread only:
    // how much of the process's time the GC's background threads take).
    static readonly int cpuClock = Environment.GetEnvironmentVariable("SP_DOTNET_CLOCK") == "thread" ? 3 : 2;

    static double CpuMs()
    {
        ClockGettime(cpuClock, out var t);
        return t.Sec * 1e3 + t.Nsec / 1e6;
    }

    static double Sample(Action a, double ms)
    {
        // Calibrate a batch of about ms milliseconds, then time it.
        int n = 1;
        double took;
        while (true)
        {
            double t0 = nowMs();
            for (int i = 0; i < n; i++) a();
            took = nowMs() - t0;
            if (took >= ms / 4 || n > 1 << 24) break;
            n *= 2;
        }
        int batch = Math.Max(1, (int)(n * (ms / Math.Max(0.001, took))));
        double t1 = nowMs();
        for (int i = 0; i < batch; i++) a();
        return (nowMs() - t1) * 1e6 / batch;
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
    /// bench/dotnet-side.mjs runs scratchpack C, WASM and JS on exactly the messages C# measured.</summary>
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

    // Every row: workload, library, mode, op, message length, the call.
    static List<(string W, string Lib, string Mode, string Op, Func<int> Bytes, Action A)> Cases()
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
        Msgpack("d.strings", "typed string[]", strings, std); Msgpack("d.strings", "contractless (object)", (object)strings, Contractless); Mempack("d.strings", strings);
        Msgpack("e.big", "typed [Key]", big, std); Msgpack("e.big", "contractless", bigC, Contractless); Mempack("e.big", big);
        return cases;
    }

    public static List<Result> Run(int rounds, double sampleMs)
    {
        var cases = Cases();

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

    /// <summary>`Peer serve DIR`: bench/dotnet-side.mjs's C# process. Writes the
    /// messages (as speed-bytes), warms every row up, prints one "row" line per
    /// row and "ready"; then each "round MS N" on stdin samples every row N
    /// times (~MS ms each, interleaved) and prints each row's median ns/op on
    /// one line, until "quit" or EOF.
    /// One process for the whole run: the JIT's tiers are reached once, and the
    /// rounds interleave with the other peers' because the driver alternates.
    /// Times are the process's CPU time (on Linux), as the other peers'.</summary>
    public static int Serve(string dir)
    {
        WriteBytes(dir);
        if (OperatingSystem.IsLinux()) nowMs = CpuMs;
        var cases = Cases();
        foreach (var c in cases) for (int i = 0; i < 3; i++) Sample(c.A, 10);   // warm-up (tiering)
        foreach (var c in cases) Console.WriteLine($"row\t{c.W}\t{c.Lib}\t{c.Mode}\t{c.Op}\t{c.Bytes()}");
        Console.WriteLine("ready");
        Console.Out.Flush();
        string? line;
        while ((line = Console.ReadLine()) != null && line != "quit")
        {
            var parts = line.Split(' ');
            if (parts[0] != "round" || parts.Length != 3) { Console.Error.WriteLine($"serve: unknown command {line}"); return 2; }
            double ms = double.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture);
            int n = int.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture);
            var samples = cases.Select(_ => new List<double>()).ToArray();
            for (int s = 0; s < n; s++)
                for (int k = 0; k < cases.Count; k++) samples[k].Add(Sample(cases[k].A, ms));
            var ns = samples.Select(x => x.OrderBy(v => v).ElementAt(x.Count / 2).ToString("F1", System.Globalization.CultureInfo.InvariantCulture));
            Console.WriteLine(string.Join(' ', ns));
            Console.Out.Flush();
        }
        return 0;
    }

    public static void Print(List<Result> results)
    {
        Console.WriteLine($"{"workload",-10} {"library",-19} {"mode",-22} {"op",-6} {"bytes",9} {"median ns/op",13} {"best",11} {"MB/s",8}");
        foreach (var x in results)
            Console.WriteLine($"{x.Workload,-10} {x.Library,-19} {x.Mode,-22} {x.Op,-6} {x.Bytes,9} {x.MedianNs,13:F1} {x.BestNs,11:F1} {x.Bytes / x.MedianNs * 1e3,8:F0}");
    }
}
