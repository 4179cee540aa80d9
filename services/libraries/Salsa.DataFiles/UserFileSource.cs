using System.Globalization;

namespace Salsa.DataFiles;

/// <summary>
/// A user's file as its reader sees it: what messages call it, whether they may quote what is in it,
/// and the most bytes it may hold once decompressed.
/// </summary>
public sealed record UserFileSource(string Name)
{
    /// <summary>
    /// Whether messages may quote the file's content (a cell, a header, a value out of range): yes for
    /// bytes the caller sent, no for a file the service read from where it lies — a path on its
    /// machine or a URL — whose content the caller has not shown it may see.
    /// </summary>
    public bool Quotable { get; init; } = true;

    /// <summary>The most bytes the file may hold once decompressed (a gzip file can grow a thousandfold).</summary>
    public long MaxBytes { get; init; } = long.MaxValue;

    /// <summary>
    /// The most bytes one record may hold: a line of a CSV or SMILES file, an SD file's record, a
    /// GeoJSON feature. Counted as the file is read, so a file of one enormous line is refused at
    /// that line without being held whole.
    /// </summary>
    public long MaxRecordBytes { get; init; } = DefaultMaxRecordBytes;

    /// <summary>
    /// <see cref="MaxRecordBytes"/> unless configured: 16 MiB — an SD record of a 10,000-atom molecule,
    /// or a SMILES of hundreds of thousands of characters, fits with room to spare; the file's own
    /// bound (<see cref="MaxBytes"/>) still holds.
    /// </summary>
    public const long DefaultMaxRecordBytes = 16L << 20;

    /// <summary>The settings of a service that set <see cref="MaxBytes"/> and <see cref="MaxRecordBytes"/>, for messages.</summary>
    public const string MaxBytesKey = "Salsa:Files:MaxBytes", MaxRecordBytesKey = "Salsa:Files:MaxRecordBytes";

    /// <summary>A file the caller sent (an upload), named <paramref name="name"/> in messages.</summary>
    public static UserFileSource FromName(string name) => new(name);

    public static implicit operator UserFileSource(string name) => FromName(name);

    /// <summary><c> 'value'</c> when messages may quote the file, else nothing.</summary>
    public string Quote(string value) => Quotable ? $" '{value}'" : string.Empty;

    /// <summary><c> 123.5</c> when messages may quote the file, else nothing.</summary>
    public string Number(double value) => Quotable ? " " + value.ToString(CultureInfo.InvariantCulture) : string.Empty;

    /// <summary><c>; its columns are a, b, c</c> when messages may quote the file, else nothing.</summary>
    public string Columns(IEnumerable<string> columns, string lead = "; its columns are ") => Quotable ? lead + string.Join(", ", columns) : string.Empty;

    public override string ToString() => Name;
}
