// Contracts.cs -- typed [MessagePackObject] contracts against scratchpack's C
// schemas (interop_dotnet.c holds the matching sp_field tables).
// Owns: the contract classes (int keys with gaps -> array form; string keys
// -> map form; nested classes, List<T>, int[]/double[], nullable members,
// DateTime, byte[]), their instances (fixed seed), and the check of what C
// and JS wrote back. Must not touch: the untyped corpus.
//
// The same shapes are tests/dotnet/contracts.json: gen-c makes the C
// schemas of interop_dotnet.c from it, interop.mjs loads it as JS
// contracts. Keep the three in step. Dictionary<string, T> members are in
// Bag, which the JS contract reads (interop.mjs declares it) and C reads as
// an untyped value tree (the C schemas have no map member).
using MessagePack;

namespace Peer;

[MessagePackObject]
public class Point
{
    [Key(0)] public int X;
    [Key(1)] public int Y;
}

// Keys 2 and 5 are gaps: the array has maxKey + 1 = 15 slots, nil in the gaps.
[MessagePackObject]
public class Record
{
    [Key(0)] public int Id;
    [Key(1)] public string? Name;
    [Key(3)] public double Score;
    [Key(4)] public List<string> Tags = new();
    [Key(6)] public byte[]? Blob;
    [Key(7)] public DateTime When;
    [Key(8)] public int[] Ints = [];
    [Key(9)] public double[] Doubles = [];
    [Key(10)] public Point Origin = new();
    [Key(11)] public List<Point> Path = new();
    [Key(12)] public bool Flag;
    [Key(13)] public long Big;
    [Key(14)] public float Ratio;
}

[MessagePackObject]
public class Address
{
    [Key("street")] public string Street = "";
    [Key("zip")] public int Zip;
}

[MessagePackObject]
public class Person
{
    [Key("id")] public long Id;
    [Key("name")] public string Name = "";
    [Key("email")] public string? Email;
    [Key("scores")] public List<int> Scores = new();
    [Key("home")] public Address Home = new();
    [Key("photo")] public byte[]? Photo;
    [Key("born")] public DateTime Born;
    [Key("weights")] public double[] Weights = [];
    [Key("places")] public List<Address> Places = new();
    [Key("age")] public byte Age;
    [Key("delta")] public short Delta;
    [Key("mask")] public ulong Mask;
}

[MessagePackObject]
public class Bag
{
    [Key("counts")] public Dictionary<string, int> Counts = new();
    [Key("points")] public Dictionary<string, Point> Points = new();
    [Key("maybe")] public int? Maybe;
}

public static class Contracts
{
    static readonly MessagePackSerializerOptions Options = MessagePackSerializerOptions.Standard;

    static string Text(Random r, int max)
    {
        int n = r.Next(0, max);
        var sb = new System.Text.StringBuilder();
        for (int i = 0; i < n; i++) sb.Append(r.Next(4) == 0 ? (char)r.Next(0xac00, 0xd7a4) : (char)r.Next('a', 'z' + 1));
        return sb.ToString();
    }

    // Whole milliseconds: the JS contract's timestamp is a Date, which holds
    // no less (sub-millisecond timestamps are the untyped corpus's, where C
    // reads them exactly and JS's difference is listed as `ts`). Before 1970
    // and after 2514 (past 2^34 seconds): timestamp 96; else 64.
    static DateTime Time(Random r)
    {
        long t = r.NextInt64(DateTime.UnixEpoch.Ticks - TimeSpan.TicksPerDay * 365 * 100,
            DateTime.UnixEpoch.Ticks + TimeSpan.TicksPerDay * 365 * 600);
        return new(t - t % TimeSpan.TicksPerMillisecond, DateTimeKind.Utc);
    }

    static Record MakeRecord(Random r, int i) => new()
    {
        Id = i % 7 == 0 ? -i : i * 1013,
        Name = i % 5 == 0 ? null : Text(r, 40),
        Score = i % 3 == 0 ? i : r.NextDouble() * 1000,
        Tags = Enumerable.Range(0, r.Next(0, 20)).Select(_ => Text(r, 10)).ToList(),
        Blob = i % 4 == 0 ? null : Enumerable.Range(0, r.Next(0, 300)).Select(k => (byte)(k * 7 + i)).ToArray(),
        When = Time(r),
        Ints = Enumerable.Range(0, r.Next(0, i % 10 == 0 ? 40000 : 50)).Select(_ => r.Next(int.MinValue, int.MaxValue) >> r.Next(0, 31)).ToArray(),
        Doubles = Enumerable.Range(0, r.Next(0, 20)).Select(_ => r.NextDouble() - 0.5).ToArray(),
        Origin = new Point { X = r.Next(-1000, 1000), Y = r.Next() },
        Path = Enumerable.Range(0, r.Next(0, 17)).Select(_ => new Point { X = r.Next(-200, 200), Y = r.Next(-70000, 70000) }).ToList(),
        Flag = r.Next(2) == 0,
        Big = r.NextInt64(long.MinValue, long.MaxValue) >> r.Next(0, 63),
        Ratio = (float)r.NextDouble(),
    };

    static Person MakePerson(Random r, int i) => new()
    {
        Id = r.NextInt64(-1L << 40, 1L << 40),
        Name = Text(r, 30),
        Email = i % 3 == 0 ? null : Text(r, 20) + "@example.invalid",
        Scores = Enumerable.Range(0, r.Next(0, 18)).Select(_ => r.Next(-100000, 100000)).ToList(),
        Home = new Address { Street = Text(r, 35), Zip = r.Next(0, 99999) },
        Photo = i % 2 == 0 ? null : Enumerable.Range(0, r.Next(0, 70000 * (i % 9 == 1 ? 1 : 0) + 50)).Select(k => (byte)k).ToArray(),
        Born = Time(r),
        Weights = Enumerable.Range(0, r.Next(0, 10)).Select(k => k * 0.5).ToArray(),
        Places = Enumerable.Range(0, r.Next(0, 5)).Select(_ => new Address { Street = Text(r, 12), Zip = r.Next(-5, 300) }).ToList(),
        Age = (byte)r.Next(0, 256),
        Delta = (short)r.Next(short.MinValue, short.MaxValue),
        Mask = (ulong)r.NextInt64() << r.Next(0, 2),
    };

    static Bag MakeBag(Random r, int i) => new()
    {
        Counts = Enumerable.Range(0, r.Next(0, 20)).ToDictionary(k => "c" + k, k => r.Next(-1000, 100000)),
        // "p" first: a key that reads as an array index ("3") would come first
        // in a JS object whatever its place in the map (docs/dotnet.md).
        Points = Enumerable.Range(0, r.Next(0, 5)).ToDictionary(k => "p" + Text(r, 6) + k, k => new Point { X = k, Y = -k }),
        Maybe = i % 2 == 0 ? null : r.Next(),
    };

    public static IEnumerable<(string Name, Type Type, object Value)> Instances()
    {
        var r = new Random(0xC0DE);
        for (int i = 0; i < 60; i++) yield return ($"Record.{i}", typeof(Record), MakeRecord(r, i));
        for (int i = 0; i < 60; i++) yield return ($"Person.{i}", typeof(Person), MakePerson(r, i));
        for (int i = 0; i < 20; i++) yield return ($"Bag.{i}", typeof(Bag), MakeBag(r, i));
    }

    public static int Write(string dir)
    {
        var bins = new List<byte[]?>();
        var lines = new List<Records.Line>();
        foreach (var (name, type, value) in Instances())
        {
            var b = MessagePackSerializer.Serialize(type, value, Options);
            var (strict, loose, reasons) = Render.Of(b);
            bins.Add(b);
            lines.Add(new(name, Render.ReasonText(reasons), strict, loose));
        }
        Records.Write(Path.Combine(dir, "contracts.bin"), bins);
        Records.WriteLines(Path.Combine(dir, "contracts.txt"), lines);
        Console.WriteLine($"contracts: {bins.Count} [MessagePackObject] instances written to {dir}/contracts.bin");
        return 0;
    }

    // C (or JS) decoded each message into its schema's struct (its contract)
    // and encoded it again: the bytes must be C#'s, and C# must read them
    // into an equal object.
    public static int Verify(string dir, string file)
    {
        var theirs = Records.Read(Path.Combine(dir, file));
        var all = Instances().ToList();
        if (theirs.Count != all.Count) { Console.Error.WriteLine($"{file}: {theirs.Count} records, {all.Count} expected"); return 1; }
        int passed = 0, failed = 0;
        for (int i = 0; i < all.Count; i++)
        {
            var (name, type, value) = all[i];
            var mine = MessagePackSerializer.Serialize(type, value, Options);
            var t = theirs[i];
            string? why = null;
            if (t == null) why = "skipped by the peer";
            else if (!t.AsSpan().SequenceEqual(mine)) why = $"bytes differ ({t.Length} B against C#'s {mine.Length} B)";
            else
            {
                try
                {
                    var back = MessagePackSerializer.Deserialize(type, t, Options);
                    if (!MessagePackSerializer.Serialize(type, back, Options).AsSpan().SequenceEqual(mine)) why = "C# reads another value";
                }
                catch (Exception ex) { why = "C# cannot read it: " + ex.GetBaseException().Message; }
            }
            if (why == null) passed++;
            else { failed++; if (failed <= 20) Console.Error.WriteLine($"contracts-verify {file}: {name}: {why}"); }
        }
        Console.WriteLine($"contracts-verify {file}: {all.Count} [MessagePackObject] instances: bytes identical to C#'s and read back by C#: {passed}");
        Console.WriteLine($"dotnet contracts-verify {file}: {passed} passed, {failed} failed");
        return failed == 0 ? 0 : 1;
    }
}
