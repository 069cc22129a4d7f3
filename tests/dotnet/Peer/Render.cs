// Render.cs -- the canonical text of one MessagePack value, read with
// MessagePack-CSharp's own MessagePackReader, and the reasons its bytes may
// legitimately differ when another encoder writes the same value.
// Owns: the two renderings (strict, loose) and the reason set. Must not
// touch: files, the corpus, the libraries' serializers.
//
// The same rules are written in C (tests/dotnet/interop_dotnet.c) and JS
// (tests/dotnet/interop.mjs); the three must agree character for character.
//   nil | true | false | n:<decimal integer> | s:<utf8 hex> | b:<hex>
//   [a,b,...] | {k=v,...} | x<type>:<hex>
//   strict: f:<float32 bits hex> | d:<float64 bits hex> | t:<sec>.<nsec>
//   loose (what a JS number and Date can hold): a float is widened to a
//     double; NaN -> nan; -0 -> d:-0; an integral value under 2^63 in
//     magnitude -> n:<decimal>; else d:<float64 bits hex>; a timestamp ->
//     t:<milliseconds> (sec*1000 + floor(nsec/10^6)).
// Reasons (why a re-encoding by JS or C may differ from C#'s bytes):
//   wide   a token not in its smallest form (C and JS write the smallest)
//   f32    a float32 (JS has only doubles)
//   fint   a float64 holding a safe integer (JS writes it as an integer)
//   nan    a NaN whose bits are not 7ff8000000000000 (V8 writes that one)
//   ts     a timestamp with a part of a millisecond (a JS Date holds ms)
//   tsrange a timestamp outside what a JS Date can hold (JS skips it)
using System.Buffers;
using System.Globalization;
using System.Numerics;
using System.Text;
using MessagePack;

namespace Peer;

[Flags]
public enum Reason { None = 0, Wide = 1, F32 = 2, FInt = 4, NaN = 8, Ts = 16, TsRange = 32 }

public static class Render
{
    public static string ReasonText(Reason r)
    {
        if (r == Reason.None) return "-";
        var parts = new List<string>();
        if ((r & Reason.Wide) != 0) parts.Add("wide");
        if ((r & Reason.F32) != 0) parts.Add("f32");
        if ((r & Reason.FInt) != 0) parts.Add("fint");
        if ((r & Reason.NaN) != 0) parts.Add("nan");
        if ((r & Reason.Ts) != 0) parts.Add("ts");
        if ((r & Reason.TsRange) != 0) parts.Add("tsrange");
        return string.Join(",", parts);
    }

    public static (string Strict, string Loose, Reason Reasons) Of(ReadOnlyMemory<byte> bytes)
    {
        var reader = new MessagePackReader(bytes);
        var s = new StringBuilder();
        var l = new StringBuilder();
        Reason r = Reason.None;
        Value(ref reader, s, l, ref r);
        if (!reader.End) throw new InvalidDataException("trailing bytes after the value");
        return (s.ToString(), l.ToString(), r);
    }

    static void Both(StringBuilder s, StringBuilder l, string t) { s.Append(t); l.Append(t); }

    static void Hex(StringBuilder s, StringBuilder l, ReadOnlySequence<byte> seq)
    {
        foreach (var m in seq)
            foreach (byte b in m.Span) { s.Append(b.ToString("x2")); l.Append(b.ToString("x2")); }
    }

    static void Value(ref MessagePackReader reader, StringBuilder s, StringBuilder l, ref Reason r)
    {
        byte code = reader.NextCode;
        switch (reader.NextMessagePackType)
        {
            case MessagePackType.Nil: reader.ReadNil(); Both(s, l, "nil"); return;
            case MessagePackType.Boolean: Both(s, l, reader.ReadBoolean() ? "true" : "false"); return;
            case MessagePackType.Integer: Integer(ref reader, code, s, l, ref r); return;
            case MessagePackType.Float:
                if (code == MessagePackCode.Float32)
                {
                    float f = reader.ReadSingle();
                    s.Append("f:").Append(BitConverter.SingleToUInt32Bits(f).ToString("x8"));
                    r |= Reason.F32;
                    LooseDouble(l, f, ref r, fromFloat: true);
                }
                else
                {
                    double d = reader.ReadDouble();
                    s.Append("d:").Append(BitConverter.DoubleToUInt64Bits(d).ToString("x16"));
                    LooseDouble(l, d, ref r, fromFloat: false);
                }
                return;
            case MessagePackType.String:
            {
                var seq = reader.ReadStringSequence()!.Value;
                long n = seq.Length;
                if (Header(code, 0xa0, 0xd9, 0xda) != Smallest(n, 31, true)) r |= Reason.Wide;
                Both(s, l, "s:"); Hex(s, l, seq);
                return;
            }
            case MessagePackType.Binary:
            {
                var seq = reader.ReadBytes()!.Value;
                long n = seq.Length;
                if (Header(code, -1, 0xc4, 0xc5) != Smallest(n, -1, true)) r |= Reason.Wide;
                Both(s, l, "b:"); Hex(s, l, seq);
                return;
            }
            case MessagePackType.Array:
            {
                int n = reader.ReadArrayHeader();
                if (Header(code, 0x90, -1, 0xdc) != Smallest(n, 15, false)) r |= Reason.Wide;
                Both(s, l, "[");
                for (int i = 0; i < n; i++) { if (i > 0) Both(s, l, ","); Value(ref reader, s, l, ref r); }
                Both(s, l, "]");
                return;
            }
            case MessagePackType.Map:
            {
                int n = reader.ReadMapHeader();
                if (Header(code, 0x80, -1, 0xde) != Smallest(n, 15, false)) r |= Reason.Wide;
                Both(s, l, "{");
                for (int i = 0; i < n; i++)
                {
                    if (i > 0) Both(s, l, ",");
                    Value(ref reader, s, l, ref r);
                    Both(s, l, "=");
                    Value(ref reader, s, l, ref r);
                }
                Both(s, l, "}");
                return;
            }
            case MessagePackType.Extension:
            {
                var h = reader.ReadExtensionFormatHeader();
                var data = reader.ReadRaw(h.Length);
                int form = code switch
                {
                    MessagePackCode.FixExt1 or MessagePackCode.FixExt2 or MessagePackCode.FixExt4
                        or MessagePackCode.FixExt8 or MessagePackCode.FixExt16 => 0,
                    MessagePackCode.Ext8 => 1, MessagePackCode.Ext16 => 2, _ => 3,
                };
                uint len = h.Length;
                int want = len is 1 or 2 or 4 or 8 or 16 ? 0 : len <= 0xff ? 1 : len <= 0xffff ? 2 : 3;
                if (form != want) r |= Reason.Wide;
                if (h.TypeCode == -1) { Timestamp(data.ToArray(), s, l, ref r); return; }
                string head = "x" + h.TypeCode.ToString(CultureInfo.InvariantCulture) + ":";
                Both(s, l, head); Hex(s, l, data);
                return;
            }
            default:
                throw new InvalidDataException($"unexpected code 0x{code:x2}");
        }
    }

    // Which of the (fix, 8-bit, 16-bit, 32-bit) forms a header code is: 0..3.
    static int Header(byte code, int fixBase, int c8, int c16)
    {
        if (fixBase >= 0 && code >= fixBase && code < fixBase + (fixBase == 0xa0 ? 32 : 16)) return 0;
        if (code == c8) return 1;
        if (code == c16) return 2;
        return 3;
    }

    static int Smallest(long n, int fixMax, bool has8)
    {
        if (fixMax >= 0 && n <= fixMax) return 0;
        if (has8 && n <= 0xff) return 1;
        if (n <= 0xffff) return 2;
        return 3;
    }

    static void Integer(ref MessagePackReader reader, byte code, StringBuilder s, StringBuilder l, ref Reason r)
    {
        string text;
        int width; // bytes of the token
        if (code <= MessagePackCode.MaxFixInt || code >= MessagePackCode.MinNegativeFixInt)
        {
            text = reader.ReadInt64().ToString(CultureInfo.InvariantCulture);
            width = 1;
        }
        else if (code is MessagePackCode.UInt8 or MessagePackCode.UInt16 or MessagePackCode.UInt32 or MessagePackCode.UInt64)
        {
            ulong u = reader.ReadUInt64();
            text = u.ToString(CultureInfo.InvariantCulture);
            width = code switch { MessagePackCode.UInt8 => 2, MessagePackCode.UInt16 => 3, MessagePackCode.UInt32 => 5, _ => 9 };
            int want = u <= 127 ? 1 : u <= 0xff ? 2 : u <= 0xffff ? 3 : u <= 0xffffffff ? 5 : 9;
            if (want != width) r |= Reason.Wide;
        }
        else
        {
            long v = reader.ReadInt64();
            text = v.ToString(CultureInfo.InvariantCulture);
            width = code switch { MessagePackCode.Int8 => 2, MessagePackCode.Int16 => 3, MessagePackCode.Int32 => 5, _ => 9 };
            // Non-negative values take the unsigned forms in every encoder here.
            if (v >= 0) r |= Reason.Wide;
            else
            {
                int want = v >= -32 ? 1 : v >= -128 ? 2 : v >= -32768 ? 3 : v >= int.MinValue ? 5 : 9;
                if (want != width) r |= Reason.Wide;
            }
        }
        Both(s, l, "n:" + text);
    }

    const double TwoTo63 = 9223372036854775808.0;
    const double MaxSafe = 9007199254740991.0;

    static void LooseDouble(StringBuilder l, double d, ref Reason r, bool fromFloat)
    {
        if (double.IsNaN(d))
        {
            l.Append("nan");
            if (!fromFloat && BitConverter.DoubleToUInt64Bits(d) != 0x7ff8000000000000UL) r |= Reason.NaN;
            return;
        }
        if (d == 0 && double.IsNegative(d)) { l.Append("d:-0"); return; }
        if (Math.Floor(d) == d && Math.Abs(d) < TwoTo63)
        {
            l.Append("n:").Append(new BigInteger(d).ToString(CultureInfo.InvariantCulture));
            if (!fromFloat && Math.Abs(d) <= MaxSafe) r |= Reason.FInt;
            return;
        }
        l.Append("d:").Append(BitConverter.DoubleToUInt64Bits(d).ToString("x16"));
    }

    // A JS Date holds +-8.64e15 ms.
    static readonly BigInteger JsDateMax = new(8_640_000_000_000_000L);

    static void Timestamp(byte[] data, StringBuilder s, StringBuilder l, ref Reason r)
    {
        long sec; uint nsec; int form;
        switch (data.Length)
        {
            case 4: sec = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(data); nsec = 0; form = 4; break;
            case 8:
            {
                ulong v = System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(data);
                nsec = (uint)(v >> 34); sec = (long)(v & 0x3ffffffffUL); form = 8; break;
            }
            case 12:
                nsec = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(data);
                sec = System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(data.AsSpan(4)); form = 12; break;
            default: throw new InvalidDataException($"timestamp of {data.Length} bytes");
        }
        int want = sec >= 0 && sec < (1L << 34) ? (nsec == 0 && sec <= uint.MaxValue ? 4 : 8) : 12;
        if (want != form) r |= Reason.Wide;
        s.Append("t:").Append(sec.ToString(CultureInfo.InvariantCulture)).Append('.').Append(nsec.ToString(CultureInfo.InvariantCulture));
        BigInteger ms = new BigInteger(sec) * 1000 + nsec / 1_000_000;
        if (BigInteger.Abs(ms) > JsDateMax) r |= Reason.TsRange;
        if (nsec % 1_000_000 != 0) r |= Reason.Ts;
        l.Append("t:").Append(ms.ToString(CultureInfo.InvariantCulture));
    }
}
