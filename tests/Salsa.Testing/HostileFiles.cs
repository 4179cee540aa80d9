using System.IO.Compression;

namespace Salsa.Testing;

/// <summary>Files built to hurt a reader of users' files.</summary>
public static class HostileFiles
{
    /// <summary>A place file whose second line holds an id of <paramref name="mebibytes"/> MiB, gzip-compressed in pieces (250 MiB packs into about 255 KB).</summary>
    public static byte[] GzipOfOneHugeLine(int mebibytes = 250)
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.SmallestSize, leaveOpen: true))
        {
            gzip.Write("id,latitude,longitude,population\n"u8);
            var chunk = new byte[1 << 20];
            Array.Fill(chunk, (byte)'x');
            for (var i = 0; i < mebibytes; i++)
            {
                gzip.Write(chunk);
            }

            gzip.Write(",39.7,-86.1,100\n"u8);
        }

        return packed.ToArray();
    }
}
