using System.Globalization;
using System.Text;
using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>
/// One compound of a user's file: where it was (its first line), its id and its structure — a
/// SMILES, or for an SDF record its molblock (<see cref="IsMolBlock"/>). RDKit reads either.
/// </summary>
public sealed record CompoundRecord(int Line, string Id, string Smiles)
{
    public bool IsMolBlock { get; init; }

    /// <summary>The compound's other values: a CSV row's other columns, an SD record's data fields (none: empty).</summary>
    public IReadOnlyDictionary<string, string> Properties { get; init; } = new Dictionary<string, string>();
}

/// <summary>A compound file's layout.</summary>
public enum CompoundFileFormat
{
    /// <summary>CSV when the first line names a SMILES column, else SMILES lines.</summary>
    Auto,

    /// <summary>One molecule per line: its SMILES, then optionally whitespace and its id (a <c>.smi</c> file).</summary>
    Smiles,

    /// <summary>A header naming a <c>smiles</c> column and optionally an <c>id</c> (or <c>name</c>) column; other columns become the compound's <see cref="CompoundRecord.Properties"/>.</summary>
    Csv,

    /// <summary>An MDL SD file: molblocks (V2000 or V3000) ended by <c>$$$$</c>; the id is the title line, or an <c>id</c>/<c>name</c> data field.</summary>
    Sdf,
}

/// <summary>
/// Reads a user's compound file as it streams in — SMILES lines, CSV (.NET's own
/// <c>TextFieldParser</c>: quoting; comma, semicolon or tab) or SDF, plain or gzip (recognised by its first bytes) — and says what is wrong
/// with the line number: a row without a SMILES, a file without a SMILES column. Whether RDKit can
/// read a SMILES is <see cref="Rdkit"/>'s to say.
/// </summary>
public static class CompoundFile
{
    private static readonly string[] SmilesColumns = ["smiles", "canonical_smiles", "isomeric_smiles", "smi"];
    private static readonly string[] IdColumns = ["id", "name", "compound_id", "molecule_id", "title"];

    public static CompoundFileFormat ParseFormat(string? format) => format?.ToLowerInvariant() switch
    {
        null or "" or "auto" => CompoundFileFormat.Auto,
        "smiles" or "smi" => CompoundFileFormat.Smiles,
        "csv" => CompoundFileFormat.Csv,
        "sdf" or "sd" or "mol" => CompoundFileFormat.Sdf,
        _ => throw new ArgumentException($"Unknown compound file format '{format}': use auto, smiles, csv or sdf."),
    };

    /// <summary>The compounds of <paramref name="stream"/>, in file order; <paramref name="source"/> names the file in messages.</summary>
    public static IEnumerable<CompoundRecord> Read(Stream stream, CompoundFileFormat format, UserFileSource? source = null)
    {
        ArgumentNullException.ThrowIfNull(stream);
        source ??= "the file";
        using var reader = new StreamReader(UserFileText.Text(stream, source), Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: 1 << 16);
        var text = new UserFileLines(reader, source); // each line at most source.MaxRecordBytes
        var first = text.ReadLine();
        if (first is null)
        {
            yield break;
        }

        // A molfile's fourth line is its counts line, which names the format's version.
        var head = new List<string> { first };
        while (head.Count < 4 && text.ReadLine() is { } more)
        {
            head.Add(more);
        }

        using var lines = head.Concat(text.ReadAll()).GetEnumerator();
        lines.MoveNext();
        var header = SplitHeader(first);
        var sdf = format == CompoundFileFormat.Sdf
            || (format == CompoundFileFormat.Auto && head.Count == 4 && (head[3].Contains("V2000", StringComparison.Ordinal) || head[3].Contains("V3000", StringComparison.Ordinal)));
        var csv = !sdf && (format == CompoundFileFormat.Csv || (format == CompoundFileFormat.Auto && header is not null && UserFileText.FindColumn(header.Value.Columns, SmilesColumns) >= 0));
        var records = sdf ? ReadSdf(lines, source) : csv ? ReadCsv(first, header, lines, source) : ReadSmiles(lines);
        foreach (var record in records)
        {
            yield return record;
        }
    }

    /// <summary>The lines after the current one.</summary>
    private static IEnumerable<string> Following(IEnumerator<string> lines)
    {
        while (lines.MoveNext())
        {
            yield return lines.Current;
        }
    }

    private static IEnumerable<CompoundRecord> ReadSmiles(IEnumerator<string> lines)
    {
        var line = 0;
        foreach (var text in Following(lines).Prepend(lines.Current))
        {
            line++;
            var trimmed = text.Trim();
            if (trimmed.Length == 0 || trimmed.StartsWith('#'))
            {
                continue;
            }

            var split = trimmed.IndexOfAny([' ', '\t']);
            var smiles = split < 0 ? trimmed : trimmed[..split];
            var id = split < 0 ? string.Empty : trimmed[(split + 1)..].Trim();
            yield return new CompoundRecord(line, id.Length > 0 ? id : UserFileText.DefaultId(line), smiles);
        }
    }

    private static IEnumerable<CompoundRecord> ReadCsv(string first, (string[] Columns, string Delimiter)? header, IEnumerator<string> lines, UserFileSource source)
    {
        if (header is null)
        {
            throw new InvalidDataException($"{source} line 1: a CSV compound file starts with a header naming its columns (smiles, and id or name).");
        }

        var (columns, delimiter) = header.Value;
        var smilesColumn = UserFileText.FindColumn(columns, SmilesColumns);
        if (smilesColumn < 0)
        {
            throw new InvalidDataException($"{source} line 1: no SMILES column (one of {string.Join(", ", SmilesColumns)}){source.Columns(columns, " among ")}.");
        }

        var idColumn = UserFileText.FindColumn(columns, IdColumns);
        var line = 1;
        foreach (var text in Following(lines))
        {
            line++;
            if (text.Trim().Length == 0)
            {
                continue;
            }

            var fields = UserFileText.Fields(text, delimiter, source, line);
            if (smilesColumn >= fields.Length || string.IsNullOrWhiteSpace(fields[smilesColumn]))
            {
                throw new InvalidDataException($"{source} line {line}: no SMILES in column '{columns[smilesColumn]}'.");
            }

            var id = idColumn >= 0 && idColumn < fields.Length ? fields[idColumn] : string.Empty;
            var properties = new Dictionary<string, string>(StringComparer.Ordinal);
            for (var c = 0; c < Math.Min(columns.Length, fields.Length); c++)
            {
                if (c != smilesColumn && c != idColumn && columns[c].Length > 0 && fields[c].Length > 0)
                {
                    properties.TryAdd(columns[c], fields[c]);
                }
            }

            yield return new CompoundRecord(line, id.Length > 0 ? id : UserFileText.DefaultId(line), fields[smilesColumn]) { Properties = properties };
        }
    }

    /// <summary>
    /// SD records: the molblock up to <c>M  END</c>, then data fields (<c>&gt; &lt;name&gt;</c> and a
    /// value line) up to <c>$$$$</c>. A record whose molblock never ends is refused with its line.
    /// </summary>
    private static IEnumerable<CompoundRecord> ReadSdf(IEnumerator<string> lines, UserFileSource source)
    {
        var line = 0;
        var start = 1;
        var block = new StringBuilder();
        var ended = false;
        string? field = null;
        string? dataId = null;
        var properties = new Dictionary<string, string>(StringComparer.Ordinal);
        long bytes = 0; // of the record so far, its data fields included
        foreach (var text in Following(lines).Prepend(lines.Current))
        {
            line++;
            if (text.StartsWith("$$$$", StringComparison.Ordinal))
            {
                yield return Record(block, ended, dataId, start, source) with { Properties = properties };
                (block, ended, field, dataId, start, properties, bytes) = (new StringBuilder(), false, null, null, line + 1, new Dictionary<string, string>(StringComparer.Ordinal), 0);
                continue;
            }

            if ((bytes += Encoding.UTF8.GetByteCount(text) + 1) > source.MaxRecordBytes)
            {
                throw new FileTooLargeException(string.Create(CultureInfo.InvariantCulture,
                    $"{source} line {start:N0}: an SD record longer than {source.MaxRecordBytes:N0} bytes, the longest record a file may have here ({UserFileSource.MaxRecordBytesKey}); nothing of it is stored."));
            }

            if (!ended)
            {
                block.Append(text).Append('\n');
                ended = text.TrimEnd() == "M  END";
            }
            else if (text.StartsWith('>') && text.IndexOf('<', StringComparison.Ordinal) is var open and >= 0 && text.IndexOf('>', open) is var close and > 0)
            {
                field = text[(open + 1)..close];
            }
            else if (field is not null && text.Trim().Length > 0)
            {
                if (IdColumns.Contains(field, StringComparer.OrdinalIgnoreCase))
                {
                    dataId ??= text.Trim();
                }
                else
                {
                    properties.TryAdd(field, text.Trim());
                }

                field = null;
            }
        }

        if (block.ToString().Trim().Length > 0)
        {
            yield return Record(block, ended, dataId, start, source) with { Properties = properties }; // the last record without its $$$$
        }
    }

    private static CompoundRecord Record(StringBuilder block, bool ended, string? dataId, int start, UserFileSource source)
    {
        if (!ended)
        {
            throw new InvalidDataException($"{source} line {start}: an SD record whose molblock has no 'M  END' line before '$$$$'.");
        }

        var molblock = block.ToString();
        var title = molblock[..molblock.IndexOf('\n', StringComparison.Ordinal)].Trim();
        var id = title.Length > 0 ? title : dataId ?? UserFileText.DefaultId(start);
        return new CompoundRecord(start, id, molblock) { IsMolBlock = true };
    }

    /// <summary>A header's columns and delimiter, if the line looks like one (a delimiter and no SMILES-only content).</summary>
    private static (string[] Columns, string Delimiter)? SplitHeader(string line) =>
        UserFileText.SplitHeader(line) ?? (UserFileText.FindColumn([line.Trim()], SmilesColumns) >= 0 ? ([line.Trim()], ",") : null);
}
