// Tables.cs -- the documents' figures measured live from MessagePack-CSharp
// and MemoryPack: bytes allocated per call for each entry, the 30,000-int
// case, the nested Serialize inside a formatter (the bytes it really
// produces), MemoryPack's List overwrite-read. Owns: those measurements
// and their rows. Must not touch: the interop files. Not a test: numbers
// depend on the runtime (bench/peer-dotnet.sh prints them).
using System.Buffers;
using System.Reflection;
using MemoryPack;
using MessagePack;
using MessagePack.Formatters;

namespace Peer;

[MessagePackObject]
public class Small
{
    [Key(0)] public int Id;
    [Key(1)] public string Name = "";
}

[MessagePackObject]
public class Inner3
{
    [Key(0)] public int A;
    [Key(1)] public string B = "";
    [Key(2)] public double C;
}

[MessagePackFormatter(typeof(EnvelopeFormatter))]
public struct Envelope { public Inner3 Value; }

// The documents' envelope: the child as a byte[] made by the byte[] entry, written as bin.
public sealed class EnvelopeFormatter : IMessagePackFormatter<Envelope>
{
    public void Serialize(ref MessagePackWriter writer, Envelope value, MessagePackSerializerOptions options)
        => writer.Write(MessagePackSerializer.Serialize(value.Value, options));

    public Envelope Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
        => new() { Value = MessagePackSerializer.Deserialize<Inner3>(reader.ReadBytes()!.Value.ToArray(), options) };
}

[MessagePackObject]
public class Outer
{
    [Key(0)] public string Before = "";
    [Key(1)] public Envelope Inner;
    [Key(2)] public int After;
}

[MessagePackObject]
public class BigText
{
    [Key(0)] public int Id;
    [Key(1)] public string Text = "";
}

[MessagePackObject]
public class BigBin
{
    [Key(0)] public int Id;
    [Key(1)] public byte[] Data = [];
}

[MemoryPackable]
public partial class MpItem
{
    public int V;
    public string? S;
}

public static class Tables
{
    public sealed record Row(string Figure, string Document, string Measured);

    static long PerCall(Action a, int warm, int n)
    {
        for (int i = 0; i < warm; i++) a();
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < n; i++) a();
        return (GC.GetAllocatedBytesForCurrentThread() - before + n / 2) / n;
    }

    static string Hex(ReadOnlySpan<byte> b) => Convert.ToHexString(b);

    public static List<Row> Measure()
    {
        var rows = new List<Row>();
        var small = new Small { Id = 1, Name = "hello" };
        byte[] smallBytes = MessagePackSerializer.Serialize(small);
        var abw = new ArrayBufferWriter<byte>(1 << 20);
        var ms = new MemoryStream(1 << 20);
        const int W = 20_000, N = 200_000;

        rows.Add(new("Small{1,\"hello\"} Serialize -> byte[] (B/call)", "32 B (the 8-byte result)",
            $"{PerCall(() => MessagePackSerializer.Serialize(small), W, N)} B ({smallBytes.Length}-byte result)"));
        rows.Add(new("Small Deserialize<Small> (B/call)", "64 B (object + \"hello\")",
            $"{PerCall(() => MessagePackSerializer.Deserialize<Small>(smallBytes), W, N)} B"));
        rows.Add(new("Small Serialize -> reused IBufferWriter (B/call)", "0 B",
            $"{PerCall(() => { abw.ResetWrittenCount(); MessagePackSerializer.Serialize(abw, small); }, W, N)} B"));
        rows.Add(new("Small Serialize -> Stream (reused MemoryStream) (B/call)", "(not quoted)",
            $"{PerCall(() => { ms.Position = 0; MessagePackSerializer.Serialize(ms, small); }, W, N)} B"));

        var big = new BigText { Id = 1, Text = new string('A', 100_000) };
        int bigLen = MessagePackSerializer.Serialize(big).Length;
        rows.Add(new($"big ({bigLen:N0} B) Serialize -> byte[] (B/call)", "100,032 B (the result array only)",
            $"{PerCall(() => MessagePackSerializer.Serialize(big), 200, 2_000)} B"));
        rows.Add(new("big Serialize -> reused IBufferWriter (B/call)", "0 B",
            $"{PerCall(() => { abw.ResetWrittenCount(); MessagePackSerializer.Serialize(abw, big); }, 200, 2_000)} B"));
        rows.Add(new("big Serialize -> Stream (reused MemoryStream) (B/call)", "(not quoted)",
            $"{PerCall(() => { ms.Position = 0; MessagePackSerializer.Serialize(ms, big); }, 200, 2_000)} B"));

        // The same 100,007-byte size as a byte[] payload: bin reserves len + 5 (under the
        // 128 KiB bucket), a string (len + 1) * 3 + 5 (over it: an unpooled array).
        var bigBin = new BigBin { Id = 1, Data = new byte[100_000] };
        rows.Add(new($"big as byte[] ({MessagePackSerializer.Serialize(bigBin).Length:N0} B) Serialize -> byte[] (B/call)", "100,032 B (the result array only)",
            $"{PerCall(() => MessagePackSerializer.Serialize(bigBin), 200, 2_000)} B"));

        // 30,000 ints: the worst-case span request leaves the 128 KiB pool.
        var list = Enumerable.Range(0, 30_000).ToList();
        var arr = list.ToArray();
        int intLen = MessagePackSerializer.Serialize(list).Length;
        foreach (var (label, act) in new (string, Action)[]
                 {
                     ("List<int> 30,000 Serialize -> byte[]", () => MessagePackSerializer.Serialize(list)),
                     ("int[] 30,000 Serialize -> byte[]", () => MessagePackSerializer.Serialize(arr)),
                     ("List<int> 30,000 -> reused IBufferWriter", () => { abw.ResetWrittenCount(); MessagePackSerializer.Serialize(abw, list); }),
                 })
        {
            for (int i = 0; i < 200; i++) act();
            GC.Collect();
            int g0 = GC.CollectionCount(0), g2 = GC.CollectionCount(2);
            long before = GC.GetAllocatedBytesForCurrentThread();
            const int calls = 2_000;
            for (int i = 0; i < calls; i++) act();
            long per = (GC.GetAllocatedBytesForCurrentThread() - before) / calls;
            int d0 = GC.CollectionCount(0) - g0, d2 = GC.CollectionCount(2) - g2;
            rows.Add(new($"{label} (B/call; gen0, gen2 collections per 1,000 calls)",
                label.Contains("IBufferWriter") ? "both LOH arrays disappear" : "2 LOH arrays per call (150 KB segment + 90 KB result)",
                $"{per:N0} B ({intLen:N0}-byte result); gen0 {d0 * 1000.0 / calls:F1}, gen2 {d2 * 1000.0 / calls:F1}"));
        }

        // The nested byte[] Serialize inside a formatter.
        var outer = new Outer { Before = "AAAAAAAAAA", Inner = new Envelope { Value = new Inner3 { A = 7, B = "inner", C = 1.5 } }, After = 99 };
        byte[] viaArray = MessagePackSerializer.Serialize(outer);
        abw.ResetWrittenCount();
        MessagePackSerializer.Serialize(abw, outer);
        byte[] viaWriter = abw.WrittenSpan.ToArray();
        string readBack;
        try { var o = MessagePackSerializer.Deserialize<Outer>(viaArray); readBack = $"reads back: Before=\"{o.Before}\", After={o.After}"; }
        catch (Exception ex) { readBack = "Deserialize: " + ex.GetBaseException().Message; }
        rows.Add(new("nested byte[] Serialize in a formatter, outer byte[] entry: first 12 bytes",
            "93 07 A5 69 6E 6E 65 72 CB 3F F8 00 (overwritten)", Hex(viaArray.AsSpan(0, 12)) + (viaArray.AsSpan(0, 12).SequenceEqual(viaWriter.AsSpan(0, 12)) ? " (not overwritten)" : " (overwritten)")));
        rows.Add(new("  ... whole message (outer byte[] entry)", "93 07 A5 ... F8 00 | C4 11 ... | 63", Hex(viaArray)));
        rows.Add(new("  ... whole message (outer IBufferWriter entry)", "93 AA 41 x10 | C4 11 ... | 63", Hex(viaWriter)));
        rows.Add(new("  ... Deserialize<Outer> of the byte[] result", "Unexpected msgpack code 7 (positive fixint)", readBack));

        // MemoryPack: List<T> overwrite-read (Deserialize(bytes, ref value)).
        var items = Enumerable.Range(0, 3).Select(i => new MpItem { V = i, S = "s" + i }).ToList();
        var firstBefore = items[0];
        var payload3 = MemoryPackSerializer.Serialize(Enumerable.Range(0, 3).Select(i => new MpItem { V = 10 + i, S = "t" + i }).ToList());
        MemoryPackSerializer.Deserialize(payload3, ref items);
        rows.Add(new("MemoryPack List<T> overwrite-read, same count: element objects reused?",
            "no: Clear() runs, every element built new", ReferenceEquals(items![0], firstBefore) ? "yes (reused)" : "no (built new)"));
        var five = Enumerable.Range(0, 5).Select(i => new MpItem { V = i }).ToList();
        var fifth = five[4];
        var f0 = five[0];
        MemoryPackSerializer.Deserialize(payload3, ref five);
        var itemsField = typeof(List<MpItem>).GetField("_items", BindingFlags.NonPublic | BindingFlags.Instance);
        var backing = (MpItem?[]?)itemsField?.GetValue(five);
        string stale = backing == null ? "(_items not reachable)" :
            ReferenceEquals(backing[4], fifth) ? "yes: _items[4] still holds the old element" : "no: cleared";
        rows.Add(new("MemoryPack List<T> overwrite-read, 5 -> 3: stale references past Count?",
            "yes, stale references stay in _items[new..old)", $"{stale}; Count {five!.Count}; element 0 {(ReferenceEquals(five[0], f0) ? "overwritten in place" : "new")}"));

        rows.Add(new("pool sizes (SequencePool: ArrayPool.Create(80K, 100), 128 KiB bucket; 64 KiB scratch)",
            "quoted from the source", "not exposed by the public API (internal fields); seen only through the allocation rows above"));
        return rows;
    }

    /// <summary>One entry of the page's x-compare, measured as the document measured it.</summary>
    public sealed record CompareRow(string Entry, long Small, long Big, int SmallLength, int BigLength);

    // The page's x-compare (web/flows/compare.js): the document's objects, Small
    // {7, "inner", 1.5} (17 B) and [1, "A" x 100,000] (100,007 B), through the
    // three entries; 200 warm-up calls, then the mean of 2,000, as the document.
    public static List<CompareRow> Compare()
    {
        var small = new Inner3 { A = 7, B = "inner", C = 1.5 };
        var big = new BigText { Id = 1, Text = new string('A', 100_000) };
        int smallLen = MessagePackSerializer.Serialize(small).Length, bigLen = MessagePackSerializer.Serialize(big).Length;
        var abw = new ArrayBufferWriter<byte>(1 << 20);
        var ms = new MemoryStream(1 << 20);
        CompareRow Row(string entry, Action<Inner3> s, Action<BigText> b) =>
            new(entry, PerCall(() => s(small), 200, 2_000), PerCall(() => b(big), 200, 2_000), smallLen, bigLen);
        return
        [
            Row("byte[]", v => MessagePackSerializer.Serialize(v), v => MessagePackSerializer.Serialize(v)),
            Row("IBufferWriter", v => { abw.ResetWrittenCount(); MessagePackSerializer.Serialize(abw, v); },
                v => { abw.ResetWrittenCount(); MessagePackSerializer.Serialize(abw, v); }),
            Row("Stream", v => { ms.SetLength(0); MessagePackSerializer.Serialize(ms, v); },
                v => { ms.SetLength(0); MessagePackSerializer.Serialize(ms, v); }),
        ];
    }

    public static void PrintCompare(List<CompareRow> rows)
    {
        Console.WriteLine("x-compare (the page's table): Small {7, \"inner\", 1.5} and [1, \"A\" x 100,000], B/call");
        foreach (var r in rows) Console.WriteLine($"  {r.Entry}: small ({r.SmallLength} B) {r.Small} B, big ({r.BigLength:N0} B) {r.Big} B");
    }

    public static void Print(List<Row> rows)
    {
        Console.WriteLine("| figure | the document says | MessagePack-CSharp 3.1.12 / MemoryPack 1.21.4, measured |");
        Console.WriteLine("| --- | --- | --- |");
        foreach (var r in rows) Console.WriteLine($"| {r.Figure} | {r.Document} | {r.Measured} |");
    }
}
