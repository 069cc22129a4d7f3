// Smallest.cs -- a message rewritten with every token in its smallest form
// (MessagePackWriter's Write(long)/Write(ulong), string, bin, header and ext
// calls; a timestamp in the smallest of 32/64/96 bits). Floats keep their
// width and bits. Owns: that rewrite. Must not touch: files or rendering.
//
// C and JS always write the smallest form; MessagePack-CSharp does not
// everywhere (an int boxed in object is d2 + 4 bytes, Render.cs marks it
// "wide"), so a peer's bytes are compared against this rewrite of C#'s.
using System.Buffers;
using System.Buffers.Binary;
using MessagePack;

namespace Peer;

public static class Smallest
{
    public static byte[] Of(ReadOnlyMemory<byte> bytes)
    {
        var reader = new MessagePackReader(bytes);
        var buf = new ArrayBufferWriter<byte>();
        var w = new MessagePackWriter(buf);
        Copy(ref reader, ref w);
        w.Flush();
        return buf.WrittenSpan.ToArray();
    }

    static void Copy(ref MessagePackReader r, ref MessagePackWriter w)
    {
        byte code = r.NextCode;
        switch (r.NextMessagePackType)
        {
            case MessagePackType.Nil: r.ReadNil(); w.WriteNil(); return;
            case MessagePackType.Boolean: w.Write(r.ReadBoolean()); return;
            case MessagePackType.Integer:
                if (code is MessagePackCode.UInt64 or MessagePackCode.UInt32) w.Write(r.ReadUInt64());
                else w.Write(r.ReadInt64());
                return;
            case MessagePackType.Float:
                if (code == MessagePackCode.Float32) w.Write(r.ReadSingle()); else w.Write(r.ReadDouble());
                return;
            case MessagePackType.String: w.WriteString(r.ReadStringSequence()!.Value.ToArray()); return;
            case MessagePackType.Binary: w.Write(r.ReadBytes()!.Value.ToArray()); return;
            case MessagePackType.Array:
            {
                int n = r.ReadArrayHeader();
                w.WriteArrayHeader(n);
                for (int i = 0; i < n; i++) Copy(ref r, ref w);
                return;
            }
            case MessagePackType.Map:
            {
                int n = r.ReadMapHeader();
                w.WriteMapHeader(n);
                for (int i = 0; i < 2 * n; i++) Copy(ref r, ref w);
                return;
            }
            case MessagePackType.Extension:
            {
                var h = r.ReadExtensionFormatHeader();
                var data = r.ReadRaw(h.Length).ToArray();
                if (h.TypeCode == -1) data = SmallestTimestamp(data);
                w.WriteExtensionFormat(new ExtensionResult(h.TypeCode, data));
                return;
            }
            default: throw new InvalidDataException($"unexpected code 0x{code:x2}");
        }
    }

    static byte[] SmallestTimestamp(byte[] d)
    {
        long sec; uint nsec;
        if (d.Length == 4) { sec = BinaryPrimitives.ReadUInt32BigEndian(d); nsec = 0; }
        else if (d.Length == 8)
        {
            ulong v = BinaryPrimitives.ReadUInt64BigEndian(d);
            nsec = (uint)(v >> 34); sec = (long)(v & 0x3ffffffffUL);
        }
        else { nsec = BinaryPrimitives.ReadUInt32BigEndian(d); sec = BinaryPrimitives.ReadInt64BigEndian(d.AsSpan(4)); }
        if (sec >= 0 && sec < (1L << 34))
        {
            if (nsec == 0 && sec <= uint.MaxValue)
            {
                var o4 = new byte[4]; BinaryPrimitives.WriteUInt32BigEndian(o4, (uint)sec); return o4;
            }
            var o8 = new byte[8]; BinaryPrimitives.WriteUInt64BigEndian(o8, ((ulong)nsec << 34) | (ulong)sec); return o8;
        }
        var o = new byte[12];
        BinaryPrimitives.WriteUInt32BigEndian(o, nsec);
        BinaryPrimitives.WriteInt64BigEndian(o.AsSpan(4), sec);
        return o;
    }
}
