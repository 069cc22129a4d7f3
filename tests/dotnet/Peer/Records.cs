// Records.cs -- the exchange files between C#, C and JS.
// Owns: the record file (each message as a u32 little-endian length and its
// bytes; length 0xffffffff = "this side skipped it") and the description
// file (one line per message: name TAB reasons TAB strict TAB loose).
// Must not touch: what the messages hold.
namespace Peer;

public static class Records
{
    public const uint Skipped = 0xffffffff;

    public static void Write(string path, IEnumerable<byte[]?> messages)
    {
        using var f = new BufferedStream(File.Create(path), 1 << 16);
        Span<byte> len = stackalloc byte[4];
        foreach (var m in messages)
        {
            System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(len, m == null ? Skipped : (uint)m.Length);
            f.Write(len);
            if (m != null) f.Write(m);
        }
    }

    public static List<byte[]?> Read(string path)
    {
        var all = File.ReadAllBytes(path);
        var list = new List<byte[]?>();
        int p = 0;
        while (p < all.Length)
        {
            uint n = System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(all.AsSpan(p));
            p += 4;
            if (n == Skipped) { list.Add(null); continue; }
            list.Add(all.AsSpan(p, (int)n).ToArray());
            p += (int)n;
        }
        return list;
    }

    public sealed record Line(string Name, string Reasons, string Strict, string Loose);

    public static void WriteLines(string path, IEnumerable<Line> lines)
    {
        using var w = new StreamWriter(path, false, new System.Text.UTF8Encoding(false), 1 << 16);
        w.NewLine = "\n";
        foreach (var l in lines) w.WriteLine($"{l.Name}\t{l.Reasons}\t{l.Strict}\t{l.Loose}");
    }

    public static List<Line> ReadLines(string path)
    {
        var list = new List<Line>();
        foreach (var raw in File.ReadLines(path))
        {
            var p = raw.Split('\t');
            if (p.Length != 4) throw new InvalidDataException($"{path}: a line with {p.Length} fields");
            list.Add(new Line(p[0], p[1], p[2], p[3]));
        }
        return list;
    }
}
