using System.Collections;
using System.Text;

namespace Salsa.Grpc;

/// <summary>
/// Custom metadata of a call (headers or trailers): an ordered multimap of lower-case keys to
/// ASCII strings, or to bytes for keys ending in <c>-bin</c> (sent base64-encoded).
/// </summary>
/// <remarks>Not thread-safe: one call's code owns it, like the HTTP header collections it mirrors.</remarks>
public sealed class Metadata : IReadOnlyList<Metadata.Entry>
{
    public const string BinaryHeaderSuffix = "-bin";

    private readonly List<Entry> _entries = [];

    public int Count => _entries.Count;

    public Entry this[int index] => _entries[index];

    public Metadata Add(string key, string value)
    {
        _entries.Add(new Entry(key, value));
        return this;
    }

    public Metadata Add(string key, byte[] valueBytes)
    {
        _entries.Add(new Entry(key, valueBytes));
        return this;
    }

    public Metadata Add(Entry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        _entries.Add(entry);
        return this;
    }

    /// <summary>The last entry with <paramref name="key"/>, or null.</summary>
    public Entry? Get(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        for (var i = _entries.Count - 1; i >= 0; i--)
        {
            if (string.Equals(_entries[i].Key, key, StringComparison.OrdinalIgnoreCase))
            {
                return _entries[i];
            }
        }

        return null;
    }

    public string? GetValue(string key) => Get(key)?.Value;

    public byte[]? GetValueBytes(string key) => Get(key)?.ValueBytes;

    public IEnumerable<Entry> GetAll(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        foreach (var entry in _entries)
        {
            if (string.Equals(entry.Key, key, StringComparison.OrdinalIgnoreCase))
            {
                yield return entry;
            }
        }
    }

    public bool Remove(Entry entry) => _entries.Remove(entry);

    public void Clear() => _entries.Clear();

    public List<Entry>.Enumerator GetEnumerator() => _entries.GetEnumerator();

    IEnumerator<Entry> IEnumerable<Entry>.GetEnumerator() => _entries.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => _entries.GetEnumerator();

    internal static bool IsBinaryKey(string key) => key.EndsWith(BinaryHeaderSuffix, StringComparison.OrdinalIgnoreCase);

    /// <summary>One key and its value; immutable.</summary>
    public sealed class Entry
    {
        private readonly string? _value;
        private readonly byte[]? _valueBytes;

        public Entry(string key, string value)
        {
            ArgumentNullException.ThrowIfNull(value);
            Key = NormalizeKey(key);
            if (IsBinaryKey(Key))
            {
                throw new ArgumentException($"Key '{Key}' ends in '{BinaryHeaderSuffix}' and so needs a byte[] value.", nameof(key));
            }

            _value = value;
        }

        public Entry(string key, byte[] valueBytes)
        {
            ArgumentNullException.ThrowIfNull(valueBytes);
            Key = NormalizeKey(key);
            if (!IsBinaryKey(Key))
            {
                throw new ArgumentException($"Key '{Key}' has a byte[] value and so must end in '{BinaryHeaderSuffix}'.", nameof(key));
            }

            _valueBytes = valueBytes;
        }

        public string Key { get; }

        public bool IsBinary => _valueBytes is not null;

        public string Value => _value ?? throw new InvalidOperationException($"Entry '{Key}' is binary: read ValueBytes.");

        public byte[] ValueBytes => _valueBytes ?? Encoding.ASCII.GetBytes(_value!);

        public override string ToString() => IsBinary ? $"[Entry: key={Key}, valueBytes={_valueBytes!.Length}]" : $"[Entry: key={Key}, value={_value}]";

        // gRPC keys are HTTP/2 header names: lower case, digits, '-', '_' and '.'. Upper-case input
        // is accepted and folded, as HTTP/2 would reject it on the wire anyway.
        private static string NormalizeKey(string key)
        {
            ArgumentException.ThrowIfNullOrEmpty(key);
            var needsLowering = false;
            foreach (var c in key)
            {
                if (c is (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-' or '_' or '.')
                {
                    continue;
                }

                if (c is >= 'A' and <= 'Z')
                {
                    needsLowering = true;
                    continue;
                }

                throw new ArgumentException($"Metadata key '{key}' contains '{c}'; only a-z, 0-9, '-', '_' and '.' are allowed.", nameof(key));
            }

            return needsLowering ? key.ToLowerInvariant() : key;
        }
    }
}
