using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;

namespace Salsa.Store;

/// <summary>
/// The SHA-256 of a dataset's content, the same whatever parts it arrived in: each column is hashed
/// as one stream — the vectors' bytes as stored (little-endian, every double to the bit), the weights'
/// bytes, each label and each text as its UTF-8 length (int32, little-endian) and bytes — and the
/// dataset's digest is the SHA-256 of its shape (kind, count, dimension, bits) and the four columns'.
/// A run records it for every dataset it reads or makes, and a reproduction compares it.
/// </summary>
internal sealed class DatasetDigest(DatasetInfo info) : IDisposable
{
    private const string Format = "salsa-dataset-sha256-v1";

    private readonly IncrementalHash _vectors = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    private readonly IncrementalHash _weights = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    private readonly IncrementalHash _labels = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    private readonly IncrementalHash _texts = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);

    /// <summary>Adds the next rows (a part of an import, in order).</summary>
    public void Add(DatasetContent part)
    {
        if (part.Values is { } values)
        {
            _vectors.AppendData(MemoryMarshal.AsBytes(values.AsSpan()));
        }
        else if (part.Words is { } words)
        {
            _vectors.AppendData(MemoryMarshal.AsBytes(words.AsSpan()));
        }

        _weights.AppendData(MemoryMarshal.AsBytes(part.Weights.AsSpan()));
        AppendStrings(_labels, part.Labels);
        AppendStrings(_texts, part.Texts);
    }

    /// <summary>The digest of the rows added: 64 lower-case hex digits.</summary>
    public string Finish()
    {
        var shape = string.Create(CultureInfo.InvariantCulture, $"{Format}\n{(int)info.Kind}\n{info.Count}\n{info.Dimension}\n{info.Bits}\n");
        using var all = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        all.AppendData(Encoding.UTF8.GetBytes(shape));
        foreach (var column in (ReadOnlySpan<IncrementalHash>)[_vectors, _weights, _labels, _texts])
        {
            all.AppendData(column.GetHashAndReset());
        }

        return Convert.ToHexStringLower(all.GetHashAndReset());
    }

    public void Dispose()
    {
        _vectors.Dispose();
        _weights.Dispose();
        _labels.Dispose();
        _texts.Dispose();
    }

    private static void AppendStrings(IncrementalHash hash, string[]? strings)
    {
        if (strings is null)
        {
            return;
        }

        var buffer = ArrayPool<byte>.Shared.Rent(4096);
        try
        {
            foreach (var text in strings)
            {
                var length = Encoding.UTF8.GetByteCount(text);
                if (buffer.Length < length + sizeof(int))
                {
                    ArrayPool<byte>.Shared.Return(buffer);
                    buffer = ArrayPool<byte>.Shared.Rent(length + sizeof(int));
                }

                BinaryPrimitives.WriteInt32LittleEndian(buffer, length);
                Encoding.UTF8.GetBytes(text, buffer.AsSpan(sizeof(int)));
                hash.AppendData(buffer, 0, length + sizeof(int));
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
