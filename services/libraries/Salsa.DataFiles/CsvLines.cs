using System.Globalization;
using System.IO.Compression;
using System.Text;

namespace Salsa.DataFiles;

/// <summary>
/// Reads the data sets' plain CSV (no quoting: the files are documented to contain none), from
/// plain or gzip files or any stream, and checks the header so a wrong file fails at once.
/// </summary>
public static class CsvLines
{
    /// <summary>Opens a file, decompressing when its name ends in <c>.gz</c>.</summary>
    public static Stream Open(string path)
    {
        var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.SequentialScan);
        return path.EndsWith(".gz", StringComparison.OrdinalIgnoreCase)
            ? new GZipStream(file, CompressionMode.Decompress, leaveOpen: false)
            : file;
    }

    /// <summary>
    /// Yields (line number, fields) for each data line after checking the header has the expected
    /// columns first (further columns are allowed). Fields are split on commas.
    /// </summary>
    public static IEnumerable<(int Line, string[] Fields)> Read(Stream stream, IReadOnlyList<string> expectedColumns, string sourceName)
    {
        using var reader = new StreamReader(stream, Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: 1 << 16);
        var header = reader.ReadLine() ?? throw new InvalidDataException($"{sourceName}: the file is empty (no header line).");
        var columns = header.Split(',');
        for (var i = 0; i < expectedColumns.Count; i++)
        {
            if (i >= columns.Length || !string.Equals(columns[i].Trim(), expectedColumns[i], StringComparison.Ordinal))
            {
                throw new InvalidDataException(
                    $"{sourceName}: header is '{header}', expected it to start with '{string.Join(',', expectedColumns)}'.");
            }
        }

        var lineNumber = 1;
        while (reader.ReadLine() is { } line)
        {
            lineNumber++;
            if (line.Length == 0)
            {
                continue;
            }

            var fields = line.Split(',');
            if (fields.Length < expectedColumns.Count)
            {
                throw new InvalidDataException(
                    $"{sourceName} line {lineNumber}: {fields.Length} fields, expected {expectedColumns.Count}.");
            }

            yield return (lineNumber, fields);
        }
    }

    internal static double ParseDouble(string text, int line, string column, string source) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && double.IsFinite(value)
            ? value
            : throw new InvalidDataException($"{source} line {line}: '{column}' is '{text}', not a finite number.");

    internal static int ParseInt(string text, int line, string column, string source) =>
        int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw new InvalidDataException($"{source} line {line}: '{column}' is '{text}', not an integer.");
}
