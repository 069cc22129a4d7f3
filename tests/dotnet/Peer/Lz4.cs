// Lz4.cs -- MessagePackCompression.Lz4Block and Lz4BlockArray both ways.
// Owns: the LZ4 corpus (values below and above the 64-byte
// CompressionMinLength and above the 32 KiB block size, each in both
// modes, as MessagePack-CSharp compresses them) and the check of what C and
// JS compressed for the same values. Must not touch: the plain corpus.
using MessagePack;

namespace Peer;

public static class Lz4
{
    static MessagePackSerializerOptions With(MessagePackCompression c) =>
        MessagePackSerializerOptions.Standard.WithCompression(c);

    sealed record Case(string Name, Type Type, object Value);

    static List<Case> Values()
    {
        var rnd = new Random(98_99);
        var noise = new byte[100_000];
        rnd.NextBytes(noise);
        var list = new List<Case>
        {
            new("tiny.int", typeof(int), 7),
            new("small.str40", typeof(string), new string('z', 40)),
            new("edge.str61", typeof(string), new string('q', 61)),     // 63 bytes plain: stays plain
            new("edge.str62", typeof(string), new string('q', 62)),     // 64 bytes plain: compressed
            new("str100", typeof(string), string.Concat(Enumerable.Repeat("hello ", 17))),
            new("int[]300", typeof(int[]), Enumerable.Range(0, 300).ToArray()),
            new("int[]30000", typeof(int[]), Enumerable.Range(0, 30_000).ToArray()),   // ~ 140 KB: several blocks
            new("str40000", typeof(string), string.Concat(Enumerable.Repeat("MessagePack ", 3400))),
            new("korean50000", typeof(string), string.Concat(Enumerable.Repeat("한국어 텍스트 ", 6000))),
            new("bin.noise100000", typeof(byte[]), noise),                // incompressible, > 64 KiB
            new("records1000", typeof(Dictionary<string, object>[]), Enumerable.Range(0, 1000).Select(i =>
                new Dictionary<string, object> { ["id"] = (long)i, ["name"] = $"user-{i:D11}", ["tags"] = new[] { "a", "bb", "ccc" } }).ToArray()),
            new("map.strings", typeof(Dictionary<string, string>), Enumerable.Range(0, 5000).ToDictionary(i => "key" + i, i => "value-" + (i * 37 % 1000))),
        };
        return list;
    }

    static IEnumerable<(string Name, Type Type, object Value, MessagePackCompression Mode)> Cases()
    {
        foreach (var c in Values())
            foreach (var mode in new[] { MessagePackCompression.Lz4Block, MessagePackCompression.Lz4BlockArray })
                yield return (c.Name + "." + mode, c.Type, c.Value, mode);
    }

    public static int Write(string dir)
    {
        var bins = new List<byte[]?>();
        var lines = new List<Records.Line>();
        foreach (var (name, type, value, mode) in Cases())
        {
            byte[] plain = MessagePackSerializer.Serialize(type, value, MessagePackSerializerOptions.Standard);
            byte[] packed = MessagePackSerializer.Serialize(type, value, With(mode));
            var (strict, loose, reasons) = Render.Of(plain);
            bins.Add(packed);
            lines.Add(new(name, Render.ReasonText(reasons), strict, loose));
        }
        Records.Write(Path.Combine(dir, "lz4.bin"), bins);
        Records.WriteLines(Path.Combine(dir, "lz4.txt"), lines);
        Console.WriteLine($"lz4: {bins.Count} messages compressed by MessagePack-CSharp to {dir}/lz4.bin");
        return 0;
    }

    // Layout of a message: "plain", "ext99" or "ext98[n blocks]".
    public static string Layout(byte[] b)
    {
        var r = new MessagePackReader(b);
        if (r.NextMessagePackType == MessagePackType.Extension)
        {
            var h = r.ReadExtensionFormatHeader();
            return h.TypeCode == 99 ? "ext99" : "plain";
        }
        if (r.NextMessagePackType == MessagePackType.Array)
        {
            int n = r.ReadArrayHeader();
            if (n > 0 && r.NextMessagePackType == MessagePackType.Extension && r.ReadExtensionFormatHeader().TypeCode == 98)
                return $"ext98[{n - 1} blocks]";
        }
        return "plain";
    }

    public static int Verify(string dir, string file)
    {
        var theirs = Records.Read(Path.Combine(dir, file));
        var cases = Cases().ToList();
        if (theirs.Count != cases.Count) { Console.Error.WriteLine($"{file}: {theirs.Count} records, {cases.Count} expected"); return 1; }
        int passed = 0, failed = 0, identical = 0;
        var layouts = new List<string>();
        for (int i = 0; i < cases.Count; i++)
        {
            var (name, type, value, mode) = cases[i];
            var t = theirs[i];
            string? why = null;
            byte[] plain = MessagePackSerializer.Serialize(type, value, MessagePackSerializerOptions.Standard);
            byte[] packed = MessagePackSerializer.Serialize(type, value, With(mode));
            if (t == null) why = "skipped by the peer";
            else
            {
                try
                {
                    // C# decompresses what the peer compressed, into the original type.
                    object? back = MessagePackSerializer.Deserialize(type, t, With(mode));
                    byte[] again = MessagePackSerializer.Serialize(type, back, MessagePackSerializerOptions.Standard);
                    if (!Smallest.Of(again).AsSpan().SequenceEqual(Smallest.Of(plain))) why = "decompressed value differs";
                    string want = Layout(packed), got = Layout(t);
                    if (want.StartsWith("ext98", StringComparison.Ordinal) != got.StartsWith("ext98", StringComparison.Ordinal) ||
                        (want == "ext99") != (got == "ext99"))
                        why = $"layout {got}, C# wrote {want}";
                    if (t.AsSpan().SequenceEqual(packed)) identical++;
                    layouts.Add($"{name}: plain {plain.Length} B; C# {packed.Length} B {want}; peer {t.Length} B {got}");
                }
                catch (Exception ex) { why = "C# cannot read it: " + ex.GetBaseException().Message; }
            }
            if (why == null) passed++;
            else { failed++; Console.Error.WriteLine($"lz4-verify {file}: {name}: {why}"); }
        }
        if (Environment.GetEnvironmentVariable("SP_DOTNET_VERBOSE") == "1") foreach (var l in layouts) Console.WriteLine("  " + l);
        Console.WriteLine($"lz4-verify {file}: {cases.Count} compressed messages read by MessagePack-CSharp; byte-identical to its own: {identical}");
        Console.WriteLine($"dotnet lz4-verify {file}: {passed} passed, {failed} failed");
        return failed == 0 ? 0 : 1;
    }
}
