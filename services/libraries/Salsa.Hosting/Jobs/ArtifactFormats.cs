using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Salsa.Hosting.Jobs;

/// <summary>
/// The binary artifacts jobs write: per-point arrays as little-endian 32-bit integers (assignments)
/// or 64-bit floats (coordinates), readable by any client without a schema. Their names and
/// content types are declared in <see cref="Contracts.Common.Artifacts"/>.
/// </summary>
public static class ArtifactFormats
{
    public static byte[] Int32s(ReadOnlySpan<int> values)
    {
        var bytes = new byte[values.Length * sizeof(int)];
        if (BitConverter.IsLittleEndian)
        {
            MemoryMarshal.AsBytes(values).CopyTo(bytes);
        }
        else
        {
            for (var i = 0; i < values.Length; i++)
            {
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(i * sizeof(int)), values[i]);
            }
        }

        return bytes;
    }

    public static int[] ReadInt32s(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length % sizeof(int) != 0)
        {
            throw new InvalidDataException($"{bytes.Length} bytes is not a whole number of 32-bit integers.");
        }

        var values = new int[bytes.Length / sizeof(int)];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = BinaryPrimitives.ReadInt32LittleEndian(bytes[(i * sizeof(int))..]);
        }

        return values;
    }

    public static byte[] Doubles(ReadOnlySpan<double> values)
    {
        var bytes = new byte[values.Length * sizeof(double)];
        for (var i = 0; i < values.Length; i++)
        {
            BinaryPrimitives.WriteDoubleLittleEndian(bytes.AsSpan(i * sizeof(double)), values[i]);
        }

        return bytes;
    }

    public static double[] ReadDoubles(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length % sizeof(double) != 0)
        {
            throw new InvalidDataException($"{bytes.Length} bytes is not a whole number of 64-bit floats.");
        }

        var values = new double[bytes.Length / sizeof(double)];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = BinaryPrimitives.ReadDoubleLittleEndian(bytes[(i * sizeof(double))..]);
        }

        return values;
    }
}
