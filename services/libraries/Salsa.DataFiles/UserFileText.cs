using System.Buffers;
using System.Globalization;
using System.Text;
using Microsoft.VisualBasic.FileIO;

namespace Salsa.DataFiles;

/// <summary>
/// What every reader of a user's file shares: the file's text, checked as it streams (gzip
/// recognised by its first bytes, not by a name the upload may not have), a header's delimiter
/// (comma, semicolon or tab) and columns, and CSV rows split by .NET's own
/// <see cref="TextFieldParser"/> (RFC 4180 quoting) with the line number in every message.
/// </summary>
public static class UserFileText
{
    private static readonly string[] Delimiters = [",", ";", "\t"];

    /// <summary>
    /// The stream's text, checked as it is read: decompressed when it starts with gzip's magic bytes
    /// (<see cref="GzipMembers"/>: every member's CRC and length checked and nothing allowed after the
    /// last, so a file cut short, damaged or joined to another is refused rather than read in part), refused at the first
    /// byte that is not UTF-8 text (NUL and the other control characters but tab, line feed, form
    /// feed and carriage return, or a malformed UTF-8 sequence) with its offset, and refused past
    /// <see cref="UserFileSource.MaxBytes"/> once decompressed.
    /// </summary>
    public static Stream Text(Stream stream, UserFileSource source)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(source);
        Span<byte> magic = stackalloc byte[2];
        var peek = new PeekStream(stream);
        var read = peek.Peek(magic);
        var start = read == 2 ? (magic[0], magic[1]) : default;
        return start switch
        {
            (0x1f, 0x8b) => new TextStream(new GzipMembers(peek, source), source, gzip: true),
            // UTF-16 with its byte order mark (a spreadsheet's "Unicode text"): read as the UTF-8 it says.
            (0xff, 0xfe) => new TextStream(Encoding.CreateTranscodingStream(peek, Encoding.Unicode, Encoding.UTF8), source, gzip: false),
            (0xfe, 0xff) => new TextStream(Encoding.CreateTranscodingStream(peek, Encoding.BigEndianUnicode, Encoding.UTF8), source, gzip: false),
            _ => new TextStream(peek, source, gzip: false),
        };
    }

    /// <summary>
    /// The text from its first byte that is not white space (a UTF-8 byte order mark skipped too), and
    /// that byte (−1 for a text of white space alone): what a reader looks at to tell JSON from lines.
    /// </summary>
    public static (Stream Text, int First) SkipWhiteSpace(Stream text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var buffer = new byte[4096];
        var read = text.ReadAtLeast(buffer, 3, throwOnEndOfStream: false);
        var i = buffer.AsSpan(0, read).StartsWith((ReadOnlySpan<byte>)[0xef, 0xbb, 0xbf]) ? 3 : 0;
        while (read > 0)
        {
            for (; i < read; i++)
            {
                if (buffer[i] is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n' or (byte)'\f'))
                {
                    return (new PeekStream(text, buffer[i..read]), buffer[i]);
                }
            }

            read = text.Read(buffer);
            i = 0;
        }

        return (text, -1);
    }

    /// <summary>A header's columns (trimmed, unquoted) and its delimiter: the first of comma, semicolon, tab it holds; null when it holds none.</summary>
    public static (string[] Columns, string Delimiter)? SplitHeader(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        foreach (var delimiter in Delimiters)
        {
            if (line.Contains(delimiter, StringComparison.Ordinal))
            {
                return ([.. line.Split(delimiter).Select(c => c.Trim().Trim('"').Trim())], delimiter);
            }
        }

        return null;
    }

    /// <summary>The index of the first column named one of <paramref name="names"/> (case-insensitive); −1 when none is.</summary>
    public static int FindColumn(IReadOnlyList<string> columns, IReadOnlyCollection<string> names)
    {
        for (var i = 0; i < columns.Count; i++)
        {
            if (names.Contains(columns[i], StringComparer.OrdinalIgnoreCase))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>One CSV row's fields (quoting as RFC 4180 has it, within the line), by .NET's own parser.</summary>
    public static string[] Fields(string text, string delimiter, UserFileSource source, int line)
    {
        using var parser = new TextFieldParser(new StringReader(text)) { TextFieldType = FieldType.Delimited, HasFieldsEnclosedInQuotes = true, TrimWhiteSpace = true };
        parser.SetDelimiters(delimiter);
        try
        {
            return parser.ReadFields() ?? [];
        }
        catch (MalformedLineException e)
        {
            throw new InvalidDataException($"{source} line {line}: not a CSV row ({e.Message}).", e);
        }
    }

    /// <summary>The id a row without one gets: <c>line-N</c>.</summary>
    public static string DefaultId(int line) => string.Create(CultureInfo.InvariantCulture, $"line-{line}");

    /// <summary>
    /// Decompressed (or plain) bytes passed through as they are, each checked on the way: text, and
    /// within the size limit. Gzip's own refusals become one message naming the file.
    /// </summary>
    private sealed class TextStream(Stream inner, UserFileSource source, bool gzip) : ForwardStream(inner)
    {
        // Bytes that are not text: the C0 controls but tab, line feed, form feed and carriage return.
        private static readonly SearchValues<byte> Controls = SearchValues.Create([0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]);

        private readonly Decoder _utf8 = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true).GetDecoder();
        private readonly char[] _chars = new char[4096]; // what the bytes decode to, thrown away: only their validity counts
        private long _offset;
        private bool _ended;

        public override int Read(Span<byte> buffer)
        {
            var read = Inner.Read(buffer);
            Check(buffer[..read]);
            return read;
        }

        private void Check(ReadOnlySpan<byte> bytes)
        {
            if (_ended)
            {
                return;
            }

            if (bytes.Length == 0)
            {
                _ended = true;
                Decode(bytes, flush: true); // a sequence cut at the end of the file
                return;
            }

            var control = bytes.IndexOfAny(Controls);
            Decode(control < 0 ? bytes : bytes[..control], flush: false);
            if (control >= 0)
            {
                throw NotText(_offset + control, string.Create(CultureInfo.InvariantCulture, $"byte 0x{bytes[control]:X2}, a control character"));
            }

            _offset += bytes.Length;
            if (_offset > source.MaxBytes)
            {
                throw new FileTooLargeException(string.Create(CultureInfo.InvariantCulture,
                    $"{source} holds more than {source.MaxBytes:N0} bytes{(gzip ? " once decompressed" : string.Empty)}, the most a file may have here ({UserFileSource.MaxBytesKey})."));
            }
        }

        private void Decode(ReadOnlySpan<byte> bytes, bool flush)
        {
            // Convert, not GetCharCount: only Convert keeps a sequence cut at the end of one read for
            // the next (GetCharCount leaves the decoder as it was, so it refused a character split
            // between two reads).
            var used = 0;
            try
            {
                do
                {
                    _utf8.Convert(bytes[used..], _chars, flush, out var bytesUsed, out _, out _);
                    used += bytesUsed;
                }
                while (used < bytes.Length);
            }
            catch (DecoderFallbackException exception)
            {
                // The index is within these bytes, or before them for a sequence begun in the last read.
                throw NotText(Math.Max(_offset + used + exception.Index, 0), "a byte that is not UTF-8: save the file as UTF-8");
            }
        }

        private InvalidDataException NotText(long offset, string what) =>
            new(string.Create(CultureInfo.InvariantCulture, $"{source}{(gzip ? ", decompressed," : string.Empty)} is not text at byte {offset:N0} ({what}); nothing of it is stored."));
    }

    /// <summary>A forward-only stream whose first bytes can be looked at before it is read, or that is given bytes to give first.</summary>
    private sealed class PeekStream(Stream inner, byte[]? first = null) : ForwardStream(inner)
    {
        private byte[] _peeked = first ?? [];
        private int _offset;

        public int Peek(Span<byte> buffer)
        {
            var read = Inner.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
            _peeked = buffer[..read].ToArray();
            return read;
        }

        public override int Read(Span<byte> buffer)
        {
            if (_offset < _peeked.Length)
            {
                var n = Math.Min(buffer.Length, _peeked.Length - _offset);
                _peeked.AsSpan(_offset, n).CopyTo(buffer);
                _offset += n;
                return n;
            }

            return Inner.Read(buffer);
        }
    }
}
