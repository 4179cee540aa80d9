using System.Runtime.InteropServices;

namespace Salsa.Store;

/// <summary>
/// A point's vector as stored: its coordinates (float64) or bit words (uint64) as little-endian
/// bytes, one BLOB/bytea per point. Bytes rather than SQL arrays because they round-trip every
/// double bit-exactly (NaN payloads, -0.0), cost no per-element encoding, and copy straight
/// between the column and the dataset's array.
/// </summary>
internal static class PointVectors
{
    /// <summary>The whole dataset's vectors as one byte array (each point's slice is contiguous), or null when the kind has none.</summary>
    public static byte[]? ToBytes(DatasetContent content)
    {
        EnsureLittleEndian();
        if (content.Values is { } values)
        {
            return MemoryMarshal.AsBytes(values.AsSpan()).ToArray();
        }

        return content.Words is { } words ? MemoryMarshal.AsBytes(words.AsSpan()).ToArray() : null;
    }

    /// <summary>Our layout is the machine's: check once instead of swapping bytes everywhere.</summary>
    public static void EnsureLittleEndian()
    {
        if (!BitConverter.IsLittleEndian)
        {
            throw new PlatformNotSupportedException("Salsa.Store stores vectors as little-endian bytes and runs on little-endian machines only.");
        }
    }
}

/// <summary>Builds a <see cref="DatasetContent"/> from stored rows, in point order.</summary>
internal sealed class DatasetContentBuilder
{
    private readonly double[]? _values;
    private readonly ulong[]? _words;
    private readonly double[] _weights;
    private readonly string[]? _labels;
    private readonly string[]? _texts;
    private readonly int _vectorBytes;
    private readonly int _first;
    private int _next;

    /// <summary>A builder for <paramref name="count"/> rows from row <paramref name="first"/> (0 for a whole dataset, a range's start otherwise).</summary>
    public DatasetContentBuilder(DatasetKind kind, int count, int dimension, int bits, bool hasLabels, bool hasTexts, int first = 0)
    {
        _first = first;
        PointVectors.EnsureLittleEndian();
        _vectorBytes = StoreValidation.VectorBytes(kind, dimension, bits);
        switch (kind)
        {
            case DatasetKind.Dense or DatasetKind.Census:
                _values = new double[(long)count * dimension];
                break;
            case DatasetKind.Binary:
                _words = new ulong[(long)count * StoreValidation.WordsPerPoint(bits)];
                break;
        }

        _weights = new double[count];
        _labels = hasLabels ? new string[count] : null;
        _texts = hasTexts ? new string[count] : null;
    }

    /// <summary>Bytes per point's vector; 0 when the kind stores none.</summary>
    public int VectorBytes => _vectorBytes;

    public int Count => _weights.Length;

    /// <summary>The index of the first row read.</summary>
    public int First => _first;

    /// <summary>Where the next point's vector bytes go.</summary>
    public Span<byte> NextVector
    {
        get
        {
            var all = _values is not null ? MemoryMarshal.AsBytes(_values.AsSpan())
                : _words is not null ? MemoryMarshal.AsBytes(_words.AsSpan())
                : [];
            return all.Slice(_next * _vectorBytes, _vectorBytes);
        }
    }

    /// <summary>Records the next point (after its vector has been written to <see cref="NextVector"/>).</summary>
    public void Add(int index, double weight, string? label, string? text)
    {
        if (index != _first + _next || _next >= _weights.Length)
        {
            throw new InvalidDataException($"Stored points are not numbered {_first}..{_first + _weights.Length - 1}: found index {index} where {_first + _next} was expected.");
        }

        _weights[_next] = weight;
        if (_labels is not null)
        {
            _labels[_next] = label ?? throw new InvalidDataException($"Point {index} has no label although the dataset has labels.");
        }

        if (_texts is not null)
        {
            _texts[_next] = text ?? throw new InvalidDataException($"Point {index} has no text although the dataset has texts.");
        }

        _next++;
    }

    public DatasetContent Build()
    {
        if (_next != _weights.Length)
        {
            throw new InvalidDataException($"{_weights.Length} points were to be read from row {_first} but {_next} are stored.");
        }

        return new DatasetContent { Values = _values, Words = _words, Weights = _weights, Labels = _labels, Texts = _texts };
    }
}
