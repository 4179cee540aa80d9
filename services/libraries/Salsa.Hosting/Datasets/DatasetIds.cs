using System.Security.Cryptography;
using System.Text;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// Ids that name content rather than an upload: the same import of the same file, or the same query
/// of the same dataset, always gets the same id, so repeating it (a workflow run again) finds the
/// dataset already stored instead of copying it again. Name-based, like RFC 9562 UUIDv5, over SHA-256.
/// </summary>
public static class DatasetIds
{
    public static Guid For(params string[] parts)
    {
        ArgumentNullException.ThrowIfNull(parts);
        var hash = SHA256.HashData(Encoding.UTF8.GetBytes(string.Join('\u001f', parts)));
        hash[6] = (byte)((hash[6] & 0x0F) | 0x80); // version 8: custom, name-based
        hash[8] = (byte)((hash[8] & 0x3F) | 0x80); // RFC 9562 variant
        return new Guid(hash.AsSpan(0, 16), bigEndian: true);
    }

    /// <summary>
    /// A hex SHA-256 of rows of fields (unit and record separators between them): what names an
    /// upload's content, whatever file layout or compression brought it.
    /// </summary>
    public static string ContentHash(IEnumerable<IEnumerable<string>> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (var row in rows)
        {
            hash.AppendData(Encoding.UTF8.GetBytes(string.Join('\u001f', row) + "\u001e"));
        }

        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }
}
