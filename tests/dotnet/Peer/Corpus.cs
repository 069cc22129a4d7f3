// Corpus.cs -- the interop corpus: C# values of every MessagePack family,
// serialized by MessagePack-CSharp, and the check of what C and JS wrote
// back for them.
// Owns: the list of values (deterministic: a fixed seed), writing cs.bin /
// cs.txt, and verifying a peer's record file. Must not touch: LZ4 and typed
// contracts (their own files), the renderer's rules (Render.cs).
using System.Text;
using MessagePack;
using MessagePack.Resolvers;

namespace Peer;

public sealed class Entry
{
    public required string Name;
    public Type? Type;          // null: written raw with MessagePackWriter (no typed round trip)
    public object? Value;
    public required byte[] Bytes;
}

public static class Corpus
{
    public static readonly MessagePackSerializerOptions Options = MessagePackSerializerOptions.Standard;

    static Entry Typed<T>(string name, T value) =>
        new() { Name = name, Type = typeof(T), Value = value, Bytes = MessagePackSerializer.Serialize(value, Options) };

    delegate void RawWrite(ref MessagePackWriter w);

    static Entry Raw(string name, RawWrite write)
    {
        var buf = new System.Buffers.ArrayBufferWriter<byte>();
        var w = new MessagePackWriter(buf);
        write(ref w);
        w.Flush();
        return new() { Name = name, Bytes = buf.WrittenSpan.ToArray() };
    }

    public static List<Entry> Build()
    {
        var list = new List<Entry>();
        var rnd = new Random(20261202);

        // nil and bool
        list.Add(Typed<object?>("nil", null));
        list.Add(Typed<int?>("nil.int?", null));
        list.Add(Typed<string?>("nil.string", null));
        list.Add(Typed("bool.true", true));
        list.Add(Typed("bool.false", false));
        list.Add(Typed<bool?>("bool?.true", true));

        // integers at every width boundary, both signs, as each C# type that holds them
        var bounds = new List<System.Numerics.BigInteger>();
        foreach (long b in new long[] { 0, 31, 32, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                     int.MaxValue, 1L + int.MaxValue, uint.MaxValue, 1L + uint.MaxValue, (1L << 53), long.MaxValue - 1 })
            for (long d = -1; d <= 1; d++)
            {
                bounds.Add(new System.Numerics.BigInteger(b) + d);
                bounds.Add(-(new System.Numerics.BigInteger(b) + d));
            }
        foreach (long b in new long[] { -32, -33, -128, -129, -32768, -32769, int.MinValue, (long)int.MinValue - 1 })
            bounds.Add(b);
        bounds.Add(long.MinValue); bounds.Add(long.MinValue + 1L); bounds.Add(long.MaxValue);
        bounds.Add(ulong.MaxValue); bounds.Add(ulong.MaxValue - 1); bounds.Add(1UL << 63); bounds.Add((1UL << 63) + 1);
        var seen = new HashSet<System.Numerics.BigInteger>();
        foreach (var v in bounds)
        {
            if (!seen.Add(v)) continue;
            AddInts(list, "int." + v, v);
        }
        for (int i = 0; i < 300; i++)
        {
            int bits = rnd.Next(1, 64);
            long v = rnd.NextInt64(1L << (bits - 1), bits == 63 ? long.MaxValue : 1L << bits);
            if (rnd.Next(2) == 0) v = -v;
            list.Add(Typed($"int.random{i}", v));
        }
        for (int i = 0; i < 40; i++)
            list.Add(Typed($"ulong.random{i}", (ulong)rnd.NextInt64() | (1UL << 63)));
        // the fixed-width writes (WriteInt8 ... WriteUInt64): not the smallest form
        foreach (long v in new long[] { 0, 1, 5, 100, 127, -1, -32, -100 })
        {
            list.Add(Raw($"wide.i8.{v}", (ref MessagePackWriter w) => w.WriteInt8((sbyte)v)));
            list.Add(Raw($"wide.i16.{v}", (ref MessagePackWriter w) => w.WriteInt16((short)v)));
            list.Add(Raw($"wide.i32.{v}", (ref MessagePackWriter w) => w.WriteInt32((int)v)));
            list.Add(Raw($"wide.i64.{v}", (ref MessagePackWriter w) => w.WriteInt64(v)));
            if (v >= 0)
            {
                list.Add(Raw($"wide.u8.{v}", (ref MessagePackWriter w) => w.WriteUInt8((byte)v)));
                list.Add(Raw($"wide.u16.{v}", (ref MessagePackWriter w) => w.WriteUInt16((ushort)v)));
                list.Add(Raw($"wide.u32.{v}", (ref MessagePackWriter w) => w.WriteUInt32((uint)v)));
                list.Add(Raw($"wide.u64.{v}", (ref MessagePackWriter w) => w.WriteUInt64((ulong)v)));
            }
        }
        foreach (long v in new long[] { 200, 1000, 70000, -200, -40000, 4_000_000_000 })
        {
            list.Add(Raw($"wide.i64.{v}", (ref MessagePackWriter w) => w.WriteInt64(v)));
            list.Add(Raw($"wide.u64.{v}", (ref MessagePackWriter w) => { if (v >= 0) w.WriteUInt64((ulong)v); else w.WriteInt64(v); }));
        }

        // floats: the special values and random bit patterns
        double[] doubles = { 0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1.0 / 3, double.NaN, double.PositiveInfinity,
            double.NegativeInfinity, double.Epsilon, double.MaxValue, double.MinValue, 2.2250738585072014e-308,
            16777216.0, 9007199254740991.0, 9007199254740992.0, 9007199254740994.0, 1e300, -1e-300, 65536.5,
            123456789.0, -4.75, 9.2233720368547758e18, -9.2233720368547758e18, 1e19,
            BitConverter.Int64BitsToDouble(0x7ff8000000000000), BitConverter.Int64BitsToDouble(0x7ff0000000000001),
            BitConverter.Int64BitsToDouble(unchecked((long)0xfff0000000abcdef)) };
        for (int i = 0; i < doubles.Length; i++) list.Add(Typed($"double.special{i}", doubles[i]));
        float[] floats = { 0f, -0f, 1f, -1f, 0.5f, 0.1f, 1f / 3, float.NaN, float.PositiveInfinity, float.NegativeInfinity,
            float.Epsilon, float.MaxValue, float.MinValue, 1.17549435e-38f, 16777216f, 16777217f, 3.5f, -1e30f,
            BitConverter.Int32BitsToSingle(0x7fc00000), BitConverter.Int32BitsToSingle(0x7f800001) };
        for (int i = 0; i < floats.Length; i++) list.Add(Typed($"float.special{i}", floats[i]));
        for (int i = 0; i < 200; i++)
            list.Add(Typed($"double.random{i}", BitConverter.Int64BitsToDouble(rnd.NextInt64(long.MinValue, long.MaxValue))));
        for (int i = 0; i < 60; i++)
            list.Add(Typed($"double.randomint{i}", (double)rnd.NextInt64(-(1L << 53), 1L << 53)));
        for (int i = 0; i < 100; i++)
            list.Add(Typed($"float.random{i}", BitConverter.Int32BitsToSingle(rnd.Next(int.MinValue, int.MaxValue))));

        // strings: header boundaries in bytes, multi-byte text whose char count and
        // byte count fall on different sides of a boundary, random text
        foreach (int n in new[] { 0, 1, 31, 32, 33, 255, 256, 65535, 65536, 100_000 })
            list.Add(Typed($"str.ascii{n}", AsciiOf(n)));
        foreach (int n in new[] { 10, 11, 85, 86, 21845, 21846 })
            list.Add(Typed($"str.korean{n}", string.Concat(Enumerable.Repeat("한", n))));
        foreach (int n in new[] { 7, 8, 63, 64, 16383, 16384 })
            list.Add(Typed($"str.emoji{n}", string.Concat(Enumerable.Repeat("😀", n))));
        foreach (int n in new[] { 15, 16, 127, 128, 32767, 32768 })
            list.Add(Typed($"str.2byte{n}", new string('é', n)));
        for (int i = 0; i < 200; i++) list.Add(Typed($"str.random{i}", RandomText(rnd, rnd.Next(0, i < 180 ? 80 : 600))));

        // bin
        foreach (int n in new[] { 0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000 })
            list.Add(Typed($"bin{n}", RandomBytes(rnd, n)));
        for (int i = 0; i < 50; i++) list.Add(Typed($"bin.random{i}", RandomBytes(rnd, rnd.Next(0, 300))));

        // arrays and maps at 15/16/65,535/65,536 entries
        foreach (int n in new[] { 0, 1, 15, 16, 17, 65535, 65536 })
        {
            list.Add(Typed($"int[]{n}", Enumerable.Range(0, n).Select(i => i * 7 - 3000).ToArray()));
            list.Add(Typed($"Dictionary<string,int>{n}", Enumerable.Range(0, n).ToDictionary(i => "k" + i, i => i - 40)));
        }
        foreach (int n in new[] { 0, 15, 16, 300 })
        {
            list.Add(Typed($"double[]{n}", Enumerable.Range(0, n).Select(i => i * 0.25 - 1).ToArray()));
            list.Add(Typed($"string[]{n}", Enumerable.Range(0, n).Select(i => "s" + i).ToArray()));
            list.Add(Typed($"List<long>{n}", Enumerable.Range(0, n).Select(i => (long)i << (i % 60)).ToList()));
            list.Add(Typed($"Dictionary<int,string>{n}", Enumerable.Range(0, n).ToDictionary(i => i * 1000 - 5, i => "v" + i)));
            list.Add(Typed($"object[]{n}", Enumerable.Range(0, n).Select(i => RandomScalar(rnd)).ToArray()));
        }
        list.Add(Typed("bool[]16", Enumerable.Range(0, 16).Select(i => i % 3 == 0).ToArray()));
        list.Add(Typed("float[]16", Enumerable.Range(0, 16).Select(i => i * 1.5f).ToArray()));

        // nesting
        foreach (int depth in new[] { 1, 2, 3, 5, 8, 16, 32, 64, 100, 200, 400, 490 })
        {
            object? v = "leaf";
            for (int d = 0; d < depth; d++) v = new object?[] { d, v };
            list.Add(Typed($"nest.array{depth}", (object?[])v!));
            object m = 1;
            for (int d = 0; d < Math.Min(depth, 200); d++) m = new Dictionary<string, object> { ["d" + d] = m, ["x"] = d };
            list.Add(Typed($"nest.map{Math.Min(depth, 200)}.{depth}", (Dictionary<string, object>)m));
        }

        // ext: types both signs (98 and 99 only nested: at the top they mean LZ4), lengths at every form
        foreach (sbyte type in new sbyte[] { 0, 1, 42, 127, -2, -100, -128 })
            foreach (int n in new[] { 0, 1, 2, 3, 4, 8, 16, 17, 255, 256, 65535, 65536 })
            {
                var data = RandomBytes(rnd, n);
                list.Add(Raw($"ext{type}.{n}", (ref MessagePackWriter w) => { w.WriteExtensionFormat(new ExtensionResult(type, data)); }));
            }
        foreach (sbyte type in new sbyte[] { 98, 99 })
        {
            var data = RandomBytes(rnd, 20);
            list.Add(Raw($"ext{type}.nested", (ref MessagePackWriter w) =>
            {
                w.WriteArrayHeader(2); w.Write(1); w.WriteExtensionFormat(new ExtensionResult(type, data));
            }));
        }

        // timestamps: DateTime (32/64/96-bit forms) and raw forms
        var epoch = DateTime.UnixEpoch;
        DateTime[] times =
        {
            epoch, epoch.AddSeconds(1), epoch.AddSeconds(uint.MaxValue), epoch.AddSeconds(1L + uint.MaxValue),
            epoch.AddSeconds((1L << 34) - 1), epoch.AddSeconds(1L << 34), epoch.AddTicks(-1), epoch.AddSeconds(-1),
            DateTime.SpecifyKind(DateTime.MinValue, DateTimeKind.Utc), DateTime.SpecifyKind(DateTime.MaxValue, DateTimeKind.Utc),
            new DateTime(2026, 12, 2, 1, 2, 3, 456, DateTimeKind.Utc), new DateTime(1900, 1, 1, 0, 0, 0, DateTimeKind.Utc),
            new DateTime(2026, 12, 2, 1, 2, 3, DateTimeKind.Utc).AddTicks(1234567), epoch.AddTicks(1),
        };
        for (int i = 0; i < times.Length; i++) list.Add(Typed($"DateTime.special{i}", times[i]));
        for (int i = 0; i < 150; i++)
        {
            long ticks = rnd.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks);
            if (i % 3 == 0) ticks -= ticks % TimeSpan.TicksPerSecond;
            else if (i % 3 == 1) ticks -= ticks % TimeSpan.TicksPerMillisecond;
            list.Add(Typed($"DateTime.random{i}", new DateTime(ticks, DateTimeKind.Utc)));
        }
        (long sec, uint nsec, int form)[] raws =
        {
            (0, 0, 4), (0, 0, 8), (0, 0, 12), (1, 5, 8), (1, 5, 12), ((1L << 34) - 1, 999_999_999, 8),
            (-1, 0, 12), (-(1L << 40), 1, 12), (1L << 40, 123_000_000, 12), (1L << 50, 0, 12), (long.MinValue, 0, 12),
            (long.MaxValue, 999_999_999, 12), (uint.MaxValue, 0, 4), (12345, 678_000_000, 8),
        };
        foreach (var (sec, nsec, form) in raws)
            list.Add(Raw($"timestamp{form * 8}.{sec}.{nsec}", (ref MessagePackWriter w) => WriteTimestamp(ref w, sec, nsec, form)));

        // each integer type boxed in an object (PrimitiveObjectFormatter's own writes)
        foreach (long v in new long[] { 1, 100, -1, -100, 200, 40000 })
        {
            if (v >= sbyte.MinValue && v <= sbyte.MaxValue) list.Add(Typed<object>($"object.sbyte.{v}", (sbyte)v));
            if (v >= 0 && v <= byte.MaxValue) list.Add(Typed<object>($"object.byte.{v}", (byte)v));
            list.Add(Typed<object>($"object.short.{v}", (short)v));
            if (v >= 0) list.Add(Typed<object>($"object.ushort.{v}", (ushort)v));
            list.Add(Typed<object>($"object.int.{v}", (int)v));
            if (v >= 0) list.Add(Typed<object>($"object.uint.{v}", (uint)v));
            list.Add(Typed<object>($"object.long.{v}", v));
            if (v >= 0) list.Add(Typed<object>($"object.ulong.{v}", (ulong)v));
        }

        // random trees mixing every family
        for (int i = 0; i < 500; i++) list.Add(Typed($"tree{i}", RandomTree(rnd, 4)));

        // a contract-shaped value: the DESIGN workloads' a.obj in both C# forms
        list.Add(Typed("a.obj", new Dictionary<string, object> { ["Id"] = 1, ["Name"] = "hello" }));
        list.Add(Typed("a.arr", new object[] { 1, "hello" }));
        return list;
    }

    static void AddInts(List<Entry> list, string name, System.Numerics.BigInteger v)
    {
        if (v >= sbyte.MinValue && v <= sbyte.MaxValue) list.Add(Typed(name + ".sbyte", (sbyte)v));
        if (v >= byte.MinValue && v <= byte.MaxValue) list.Add(Typed(name + ".byte", (byte)v));
        if (v >= short.MinValue && v <= short.MaxValue) list.Add(Typed(name + ".short", (short)v));
        if (v >= ushort.MinValue && v <= ushort.MaxValue) list.Add(Typed(name + ".ushort", (ushort)v));
        if (v >= int.MinValue && v <= int.MaxValue) list.Add(Typed(name + ".int", (int)v));
        if (v >= uint.MinValue && v <= uint.MaxValue) list.Add(Typed(name + ".uint", (uint)v));
        if (v >= long.MinValue && v <= long.MaxValue) list.Add(Typed(name + ".long", (long)v));
        if (v >= ulong.MinValue && v <= ulong.MaxValue) list.Add(Typed(name + ".ulong", (ulong)v));
    }

    static void WriteTimestamp(ref MessagePackWriter w, long sec, uint nsec, int form)
    {
        var data = new byte[form];
        if (form == 4) System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(data, (uint)sec);
        else if (form == 8) System.Buffers.Binary.BinaryPrimitives.WriteUInt64BigEndian(data, ((ulong)nsec << 34) | (ulong)sec);
        else
        {
            System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(data, nsec);
            System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(data.AsSpan(4), sec);
        }
        w.WriteExtensionFormat(new ExtensionResult(-1, data));
    }

    static string AsciiOf(int n)
    {
        var sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.Append((char)('a' + i % 26));
        return sb.ToString();
    }

    static string RandomText(Random rnd, int chars)
    {
        var sb = new StringBuilder();
        for (int i = 0; i < chars; i++)
        {
            switch (rnd.Next(6))
            {
                case 0: case 1: sb.Append((char)rnd.Next(0x20, 0x7f)); break;
                case 2: sb.Append((char)rnd.Next(0x80, 0x800)); break;
                case 3: sb.Append((char)rnd.Next(0xac00, 0xd7a4)); break;
                case 4: sb.Append(char.ConvertFromUtf32(rnd.Next(0x10000, 0x10ffff))); break;
                default: sb.Append((char)rnd.Next(0, 0x20)); break;
            }
        }
        return sb.ToString();
    }

    static byte[] RandomBytes(Random rnd, int n)
    {
        var b = new byte[n];
        rnd.NextBytes(b);
        return b;
    }

    static object? RandomScalar(Random rnd) => rnd.Next(12) switch
    {
        0 => null,
        1 => rnd.Next(2) == 0,
        2 => rnd.Next(-40, 200),
        3 => rnd.NextInt64(long.MinValue, long.MaxValue),
        4 => (ulong)rnd.NextInt64() << 1,
        5 => rnd.NextDouble() * 1e6 - 5e5,
        6 => (float)(rnd.NextDouble() * 100),
        7 => RandomText(rnd, rnd.Next(0, 40)),
        8 => RandomBytes(rnd, rnd.Next(0, 40)),
        9 => new DateTime(rnd.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks), DateTimeKind.Utc),
        10 => (double)rnd.Next(-1000, 1000),
        _ => rnd.Next(int.MinValue, int.MaxValue),
    };

    static object? RandomTree(Random rnd, int depth)
    {
        if (depth == 0 || rnd.Next(3) == 0) return RandomScalar(rnd);
        if (rnd.Next(2) == 0)
            return Enumerable.Range(0, rnd.Next(0, 20)).Select(_ => RandomTree(rnd, depth - 1)).ToArray();
        var d = new Dictionary<object, object?>();
        int n = rnd.Next(0, 18);
        for (int i = 0; i < n; i++)
        {
            object key = rnd.Next(3) switch { 0 => "key" + i, 1 => (object)(i * 3 - 10), _ => RandomText(rnd, rnd.Next(1, 8)) + i };
            d[key] = RandomTree(rnd, depth - 1);
        }
        return d;
    }

    // ---- files ------------------------------------------------------------

    public static int Write(string dir)
    {
        var entries = Build();
        var lines = new List<Records.Line>();
        foreach (var e in entries)
        {
            var (strict, loose, reasons) = Render.Of(e.Bytes);
            lines.Add(new(e.Name, Render.ReasonText(reasons), strict, loose));
        }
        Records.Write(Path.Combine(dir, "cs.bin"), entries.Select(e => e.Bytes));
        Records.WriteLines(Path.Combine(dir, "cs.txt"), lines);
        Console.WriteLine($"corpus: {entries.Count} values written by MessagePack-CSharp to {dir}/cs.bin");
        return 0;
    }

    // Reasons that allow a peer's bytes to differ from C#'s.
    static readonly string[] CAllowed = { };
    static readonly string[] JsAllowed = { "wide", "f32", "fint", "nan", "ts" };

    // What C (strict) or JS (loose) wrote for each corpus value: C# reads it
    // (render and typed deserialize), and the bytes are compared.
    public static int Verify(string dir, string file, string mode)
    {
        bool strict = mode == "strict";
        var entries = Build();
        var lines = Records.ReadLines(Path.Combine(dir, "cs.txt"));
        var theirs = Records.Read(Path.Combine(dir, file));
        if (theirs.Count != entries.Count || lines.Count != entries.Count)
        {
            Console.Error.WriteLine($"verify {file}: {theirs.Count} records, {entries.Count} expected");
            return 1;
        }
        var allowed = strict ? CAllowed : JsAllowed;
        int passed = 0, failed = 0, identical = 0, skipped = 0;
        var differ = new SortedDictionary<string, int>();
        for (int i = 0; i < entries.Count; i++)
        {
            var e = entries[i];
            var t = theirs[i];
            var reasons = lines[i].Reasons.Split(',');
            if (t == null)
            {
                if (!strict && reasons.Contains("tsrange")) { skipped++; continue; }
                Fail($"{e.Name}: skipped by the peer"); continue;
            }
            string? why = null;
            try
            {
                var (s, l, _) = Render.Of(t);
                string want = strict ? lines[i].Strict : lines[i].Loose;
                string got = strict ? s : l;
                if (got != want) why = $"reads as {Cut(got)}, wrote {Cut(want)}";
                else if (e.Type != null && TypedApplies(e, strict, reasons))
                {
                    // MessagePack-CSharp's own deserializer into the original type,
                    // serialized again, must give its original bytes.
                    object? back = MessagePackSerializer.Deserialize(e.Type, t, Options);
                    byte[] again = MessagePackSerializer.Serialize(e.Type, back, Options);
                    // An object-typed member takes its boxed type from the wire (fixint -> byte), and
                    // C# writes boxed integers at their type's width: compare in the smallest form.
                    if (!again.AsSpan().SequenceEqual(e.Bytes) &&
                        !Smallest.Of(again).AsSpan().SequenceEqual(Smallest.Of(e.Bytes)))
                        why = "typed round trip differs";
                }
            }
            catch (Exception ex) { why = "C# cannot read it: " + ex.GetBaseException().Message; }
            if (why == null)
            {
                // C# 'wide' tokens are compared in their smallest form: C and JS write that.
                bool same = t.AsSpan().SequenceEqual(e.Bytes);
                if (same) identical++;
                else if (reasons.Contains("wide") && t.AsSpan().SequenceEqual(Smallest.Of(e.Bytes)) &&
                         !reasons.Any(x => x != "wide" && allowed.Contains(x)))
                {
                    differ["wide (C#'s bytes in their smallest form, identical)"] =
                        differ.GetValueOrDefault("wide (C#'s bytes in their smallest form, identical)") + 1;
                }
                else
                {
                    var r = reasons.Where(x => x != "wide" && allowed.Contains(x)).ToArray();
                    if (r.Length == 0) why = $"bytes differ with no listed reason: C# {Hex(e.Bytes)} peer {Hex(t)}";
                    else { var k = string.Join(",", r); differ[k] = differ.GetValueOrDefault(k) + 1; }
                }
            }
            if (why == null) passed++; else Fail($"{e.Name}: {why}");
        }
        void Fail(string m) { failed++; if (failed <= 20) Console.Error.WriteLine($"verify {file}: {m}"); }
        Console.WriteLine($"verify {file}: {entries.Count} values, {identical} byte-identical to C#, " +
            $"{entries.Count - identical - skipped - failed} differ for listed reasons" +
            (differ.Count > 0 ? " (" + string.Join("; ", differ.Select(kv => $"{kv.Key}: {kv.Value}")) + ")" : "") +
            (skipped > 0 ? $", {skipped} skipped (outside a JS Date)" : ""));
        Console.WriteLine($"dotnet verify {file}: {passed} passed, {failed} failed");
        return failed == 0 ? 0 : 1;
    }

    // The typed check holds when the value reached the peer without loss for C#'s type:
    // C keeps every family; JS keeps them in a typed member (double, float, long, ...) but
    // an object-typed container reads a JS integer as an integer.
    static bool TypedApplies(Entry e, bool strict, string[] reasons)
    {
        if (strict) return true;
        if (reasons.Contains("ts") || reasons.Contains("nan")) return false;
        if (reasons.Contains("f32") || reasons.Contains("fint")) return !MentionsObject(e.Type!);
        return true;
    }

    static bool MentionsObject(Type t) =>
        t == typeof(object) || (t.IsArray && MentionsObject(t.GetElementType()!)) ||
        (t.IsGenericType && t.GetGenericArguments().Any(MentionsObject));

    static string Cut(string s) => s.Length > 120 ? s[..120] + "..." : s;
    static string Hex(byte[] b) => Convert.ToHexString(b.AsSpan(0, Math.Min(b.Length, 40))).ToLowerInvariant() + (b.Length > 40 ? "..." : "");
}
