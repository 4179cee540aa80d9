using System.Globalization;
using System.Text;

namespace Salsa.DataFiles;

/// <summary>
/// The lines of a user's text, as <see cref="TextReader.ReadLine"/> gives them (line feed, carriage
/// return, or both, end a line; the last may have none), each refused once it passes
/// <see cref="UserFileSource.MaxRecordBytes"/> (its UTF-8 bytes, counted as it is read): a file of one
/// 250 MiB line costs a megabyte before it is refused, not gigabytes of string. Also counts the lines.
/// </summary>
public sealed class UserFileLines(TextReader reader, UserFileSource source)
{
    private readonly char[] _buffer = new char[1 << 16];
    private readonly StringBuilder _long = new();
    private int _start, _end;

    /// <summary>The number of the line <see cref="ReadLine"/> gave last (1 for the first).</summary>
    public int Number { get; private set; }

    /// <summary>The next line, without its end; null at the end of the text.</summary>
    public string? ReadLine()
    {
        ArgumentNullException.ThrowIfNull(source);
        long bytes = 0;
        var partial = false;
        _long.Clear();
        while (true)
        {
            if (_start == _end && !Fill())
            {
                if (!partial)
                {
                    return null;
                }

                Number++;
                return _long.ToString();
            }

            var span = _buffer.AsSpan(_start, _end - _start);
            var end = span.IndexOfAny('\r', '\n');
            var piece = end < 0 ? span : span[..end];
            bytes += Encoding.UTF8.GetByteCount(piece);
            if (bytes > source.MaxRecordBytes)
            {
                throw new FileTooLargeException(string.Create(CultureInfo.InvariantCulture,
                    $"{source} line {Number + 1:N0} is longer than {source.MaxRecordBytes:N0} bytes, the longest line a file may have here ({UserFileSource.MaxRecordBytesKey}); nothing of it is stored."));
            }

            if (end < 0)
            {
                _long.Append(piece);
                partial = true;
                _start = _end;
                continue;
            }

            var line = partial ? _long.Append(piece).ToString() : new string(piece);
            _start += end + 1;
            if (span[end] == '\r' && (_start < _end || Fill()) && _buffer[_start] == '\n')
            {
                _start++;
            }

            Number++;
            return line;
        }
    }

    /// <summary>Every line left.</summary>
    public IEnumerable<string> ReadAll()
    {
        while (ReadLine() is { } line)
        {
            yield return line;
        }
    }

    private bool Fill()
    {
        _start = 0;
        _end = reader.Read(_buffer);
        return _end > 0;
    }
}
