using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using ICSharpCode.SharpZipLib;
using ICSharpCode.SharpZipLib.Checksum;
using ICSharpCode.SharpZipLib.Zip.Compression;

namespace Salsa.DataFiles;

/// <summary>
/// The decompressed bytes of a gzip file (RFC 1952), read strictly: every member's header, its
/// deflate data (SharpZipLib's <see cref="Inflater"/>) and its trailer — CRC-32 and length, both
/// checked — and after the last member nothing at all. Both gzip readers at hand are lenient where a
/// user's file must not be: .NET's <c>GZipStream</c> reads a file cut in its data or trailer as a
/// shorter file, and SharpZipLib's <c>GZipInputStream</c> ignores whatever follows the last member
/// (two files joined, a damaged tail); either would store part of what was sent without a word.
/// Only the member framing is ours; inflating and the checksum are the library's.
/// </summary>
internal sealed class GzipMembers(Stream compressed, UserFileSource source) : ForwardStream(compressed)
{
    private const int HeaderText = 0x08, HeaderComment = 0x10, HeaderCrc = 0x02, HeaderExtra = 0x04, HeaderReserved = 0xe0;

    private readonly byte[] _input = new byte[1 << 16];
    private readonly Inflater _inflater = new(noHeader: true);
    private readonly Crc32 _crc = new();
    private readonly byte[] _trailer = new byte[8];
    private int _position, _length;
    private long _consumed; // compressed bytes before _input[0]
    private long _memberSize;
    private int _members;
    private State _state = State.Header;

    private enum State
    {
        Header,
        Data,
        Trailer,
        End,
    }

    public override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        while (count > 0)
        {
            switch (_state)
            {
                case State.Header:
                    _state = ReadHeader() ? State.Data : State.End;
                    break;
                case State.Data:
                    if (_inflater.IsFinished)
                    {
                        // What the inflater was given past the member's data is the trailer, and what follows.
                        _position = _length - _inflater.RemainingInput;
                        _state = State.Trailer;
                        break;
                    }

                    if (_inflater.IsNeedingInput)
                    {
                        if (_position == _length && !Fill())
                        {
                            throw CutShort();
                        }

                        _inflater.SetInput(_input, _position, _length - _position);
                        _position = _length;
                    }

                    var inflated = Inflate(buffer, offset, count);
                    if (inflated > 0)
                    {
                        _crc.Update(new ArraySegment<byte>(buffer, offset, inflated));
                        _memberSize += inflated;
                        return inflated;
                    }

                    if (_inflater.IsNeedingDictionary)
                    {
                        throw Damaged("a member asks for a preset dictionary, which gzip has none of");
                    }

                    break;
                case State.Trailer:
                    var trailer = _trailer.AsSpan();
                    for (var i = 0; i < trailer.Length; i++)
                    {
                        trailer[i] = NextByte() ?? throw CutShort();
                    }

                    if (BinaryPrimitives.ReadUInt32LittleEndian(trailer) != (uint)_crc.Value)
                    {
                        throw Damaged("a member's CRC-32 does not match its data");
                    }

                    if (BinaryPrimitives.ReadUInt32LittleEndian(trailer[4..]) != (uint)_memberSize)
                    {
                        throw Damaged("a member's length does not match its data");
                    }

                    _members++;
                    _inflater.Reset();
                    _crc.Reset();
                    _memberSize = 0;
                    _state = State.Header;
                    break;
                default:
                    return 0;
            }
        }

        return 0;
    }

    public override int Read(Span<byte> buffer)
    {
        var rented = ArrayPool<byte>.Shared.Rent(Math.Min(buffer.Length, 1 << 16));
        try
        {
            var read = Read(rented, 0, Math.Min(buffer.Length, rented.Length));
            rented.AsSpan(0, read).CopyTo(buffer);
            return read;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    /// <summary>A member's header; false at the end of the file after a member, an error for anything else there.</summary>
    private bool ReadHeader()
    {
        var offset = _consumed + _position;
        if (NextByte() is not { } first)
        {
            return _members > 0 ? false : throw CutShort();
        }

        if (first != 0x1f || NextByte() is not 0x8b)
        {
            throw new InvalidDataException(string.Create(CultureInfo.InvariantCulture,
                $"{source}: bytes follow the last gzip member, from byte {offset:N0} of the compressed file (two files joined, or a damaged end?); a gzip file ends with its last member, so nothing of it is stored."));
        }

        if (NextByte() is not 8)
        {
            throw Damaged("a member is not compressed with deflate");
        }

        var flags = NextByte() ?? throw CutShort();
        if ((flags & HeaderReserved) != 0)
        {
            throw Damaged("a member's header has reserved flags set");
        }

        Skip(6); // time, extra flags, operating system
        if ((flags & HeaderExtra) != 0)
        {
            var low = NextByte() ?? throw CutShort();
            var high = NextByte() ?? throw CutShort();
            Skip(low | (high << 8));
        }

        if ((flags & HeaderText) != 0)
        {
            SkipZeroTerminated();
        }

        if ((flags & HeaderComment) != 0)
        {
            SkipZeroTerminated();
        }

        if ((flags & HeaderCrc) != 0)
        {
            Skip(2);
        }

        return true;
    }

    private int Inflate(byte[] buffer, int offset, int count)
    {
        try
        {
            return _inflater.Inflate(buffer, offset, count);
        }
        catch (SharpZipBaseException exception)
        {
            throw Damaged(exception.Message);
        }
    }

    private void Skip(int bytes)
    {
        for (var i = 0; i < bytes; i++)
        {
            _ = NextByte() ?? throw CutShort();
        }
    }

    private void SkipZeroTerminated()
    {
        while ((NextByte() ?? throw CutShort()) != 0)
        {
        }
    }

    private byte? NextByte() => _position < _length || Fill() ? _input[_position++] : null;

    /// <summary>Reads more compressed bytes once every one read so far was used; false at the end of the file.</summary>
    private bool Fill()
    {
        _consumed += _length;
        _position = _length = 0;
        _length = Inner.Read(_input);
        return _length > 0;
    }

    private InvalidDataException CutShort() => Damaged("it ends inside a member");

    private InvalidDataException Damaged(string why) => new($"{source}: the gzip data is cut short or damaged ({why}); nothing of it is stored.");
}
