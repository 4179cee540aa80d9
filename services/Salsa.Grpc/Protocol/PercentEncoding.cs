using System.Buffers;
using System.Text;

namespace Salsa.Grpc;

/// <summary>
/// grpc-message encoding: UTF-8 bytes outside printable ASCII (0x20-0x7E), and '%' itself, are
/// written as %XX. Decoding is lenient, as the spec asks: a malformed escape is kept as text.
/// </summary>
internal static class PercentEncoding
{
    public static string Encode(string value)
    {
        var plain = true;
        foreach (var c in value)
        {
            if (c is < ' ' or > '~' or '%')
            {
                plain = false;
                break;
            }
        }

        if (plain)
        {
            return value;
        }

        var bytes = Encoding.UTF8.GetBytes(value);
        var builder = new StringBuilder(bytes.Length * 3);
        foreach (var b in bytes)
        {
            if (b is < 0x20 or > 0x7E or (byte)'%')
            {
                builder.Append('%').Append(HexUpper(b >> 4)).Append(HexUpper(b & 0xF));
            }
            else
            {
                builder.Append((char)b);
            }
        }

        return builder.ToString();
    }

    public static string Decode(string value)
    {
        if (!value.Contains('%', StringComparison.Ordinal))
        {
            return value;
        }

        var bytes = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetMaxByteCount(value.Length));
        try
        {
            var count = 0;
            for (var i = 0; i < value.Length; i++)
            {
                var c = value[i];
                if (c == '%' && i + 2 < value.Length && TryHex(value[i + 1], out var high) && TryHex(value[i + 2], out var low))
                {
                    bytes[count++] = (byte)((high << 4) | low);
                    i += 2;
                }
                else
                {
                    var length = char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]) ? 2 : 1;
                    count += Encoding.UTF8.GetBytes(value.AsSpan(i, length), bytes.AsSpan(count));
                    i += length - 1;
                }
            }

            return Encoding.UTF8.GetString(bytes, 0, count);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(bytes);
        }
    }

    private static char HexUpper(int nibble) => (char)(nibble < 10 ? '0' + nibble : 'A' + nibble - 10);

    private static bool TryHex(char c, out int value)
    {
        value = c switch
        {
            >= '0' and <= '9' => c - '0',
            >= 'a' and <= 'f' => c - 'a' + 10,
            >= 'A' and <= 'F' => c - 'A' + 10,
            _ => -1,
        };
        return value >= 0;
    }
}
