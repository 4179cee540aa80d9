using System.Buffers.Binary;

namespace Salsa.Graphics.Tests;

/// <summary>Reads what the tests need from a PNG without a decoder: the signature and the IHDR chunk.</summary>
internal static class PngHeader
{
    public static ReadOnlySpan<byte> Signature => [0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A];

    public static bool HasSignature(ReadOnlySpan<byte> png) => png.StartsWith(Signature);

    /// <summary>The image size from IHDR, which the PNG specification requires to be the first chunk.</summary>
    public static (int Width, int Height) ReadSize(ReadOnlySpan<byte> png)
    {
        Assert.True(HasSignature(png), "The data does not start with the PNG signature.");
        var chunk = png[Signature.Length..];
        Assert.Equal(13u, BinaryPrimitives.ReadUInt32BigEndian(chunk));
        Assert.True(chunk[4..8].SequenceEqual("IHDR"u8), "The first chunk is not IHDR.");
        return ((int)BinaryPrimitives.ReadUInt32BigEndian(chunk[8..]), (int)BinaryPrimitives.ReadUInt32BigEndian(chunk[12..]));
    }
}
