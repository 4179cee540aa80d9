using System.Buffers.Binary;
using System.IO.Compression;
using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Tests;

/// <summary>
/// Just enough of a PNG decoder to read back what Skia writes: 8-bit RGBA or RGB, not
/// interlaced, any of the five row filters.
/// </summary>
internal sealed class PngImage
{
    private static ReadOnlySpan<byte> Signature => [0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A];

    private readonly byte[] _pixels;
    private readonly int _channels;

    private PngImage(int width, int height, int channels, byte[] pixels) => (Width, Height, _channels, _pixels) = (width, height, channels, pixels);

    public int Width { get; }

    public int Height { get; }

    /// <summary>The size from IHDR, which the specification requires to be the first chunk.</summary>
    public static (int Width, int Height) ReadSize(ReadOnlySpan<byte> png)
    {
        Assert.True(png.StartsWith(Signature), "The data does not start with the PNG signature.");
        var chunk = png[Signature.Length..];
        Assert.Equal(13u, BinaryPrimitives.ReadUInt32BigEndian(chunk));
        Assert.True(chunk[4..8].SequenceEqual("IHDR"u8), "The first chunk is not IHDR.");
        return ((int)BinaryPrimitives.ReadUInt32BigEndian(chunk[8..]), (int)BinaryPrimitives.ReadUInt32BigEndian(chunk[12..]));
    }

    public static PngImage Decode(byte[] png)
    {
        var (width, height) = ReadSize(png);
        var header = png.AsSpan(Signature.Length + 8, 13);
        Assert.Equal(8, header[8]);
        var channels = header[9] switch
        {
            6 => 4,
            2 => 3,
            var type => throw new NotSupportedException($"PNG colour type {type} is not decoded here."),
        };
        Assert.Equal(0, header[12]);

        using var compressed = new MemoryStream();
        for (var offset = Signature.Length; offset < png.Length;)
        {
            var length = (int)BinaryPrimitives.ReadUInt32BigEndian(png.AsSpan(offset));
            var type = png.AsSpan(offset + 4, 4);
            if (type.SequenceEqual("IDAT"u8))
            {
                compressed.Write(png, offset + 8, length);
            }

            offset += 12 + length;
        }

        compressed.Position = 0;
        using var inflater = new ZLibStream(compressed, CompressionMode.Decompress);
        var stride = width * channels;
        var raw = new byte[height * (stride + 1)];
        inflater.ReadExactly(raw);

        var pixels = new byte[height * stride];
        for (var y = 0; y < height; y++)
        {
            var filter = raw[y * (stride + 1)];
            var line = raw.AsSpan((y * (stride + 1)) + 1, stride);
            var row = pixels.AsSpan(y * stride, stride);
            var above = y > 0 ? pixels.AsSpan((y - 1) * stride, stride) : new byte[stride];
            for (var x = 0; x < stride; x++)
            {
                int a = x >= channels ? row[x - channels] : 0, b = above[x], c = x >= channels ? above[x - channels] : 0;
                row[x] = (byte)(line[x] + filter switch
                {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => (a + b) / 2,
                    4 => Paeth(a, b, c),
                    _ => throw new InvalidDataException($"Unknown PNG filter {filter}."),
                });
            }
        }

        return new PngImage(width, height, channels, pixels);

        static int Paeth(int a, int b, int c)
        {
            var p = a + b - c;
            var (pa, pb, pc) = (Math.Abs(p - a), Math.Abs(p - b), Math.Abs(p - c));
            return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        }
    }

    public Color this[int x, int y]
    {
        get
        {
            var i = ((y * Width) + x) * _channels;
            return Color.FromRgb(_pixels[i], _pixels[i + 1], _pixels[i + 2], _channels == 4 ? _pixels[i + 3] : (byte)255);
        }
    }

    /// <summary>Largest channel difference, in 0..255.</summary>
    public static double Distance(Color a, Color b) =>
        255 * Math.Max(Math.Abs(a.R - b.R), Math.Max(Math.Abs(a.G - b.G), Math.Abs(a.B - b.B)));
}
