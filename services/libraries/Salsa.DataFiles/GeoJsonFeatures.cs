using System.Globalization;
using System.Text.Json;

namespace Salsa.DataFiles;

/// <summary>
/// The features of a GeoJSON FeatureCollection, read as the file streams in: .NET's
/// <see cref="Utf8JsonReader"/> over a buffer that holds one feature (or one other member of the
/// collection) at a time, each parsed into its own small <see cref="JsonDocument"/>. So a file costs
/// the largest feature, not the whole file as a string and a document (a 256 MiB file cost over a
/// gigabyte); a feature past <see cref="UserFileSource.MaxRecordBytes"/> is refused where it starts.
/// </summary>
/// <remarks>
/// The reader cannot be kept across reads of the stream (it is a ref struct over the buffer), so the
/// loop keeps a checkpoint — the reader's state and position before the value being read — and when a
/// value runs past the buffer's end, goes back to it, moves the unread bytes to the front, reads more
/// and tries again; the buffer grows only while one value needs it.
/// </remarks>
internal static class GeoJsonFeatures
{
    private enum Phase
    {
        Root,
        Members,
        Features,
        After,
    }

    /// <summary>
    /// Calls <paramref name="feature"/> with each element of the root object's <c>features</c> array, in
    /// order; throws <see cref="InvalidDataException"/> with <paramref name="notACollection"/> when the
    /// root is not an object, its <c>type</c> is not <c>FeatureCollection</c> or it has no
    /// <c>features</c> array, and with the line and byte of a text that is not JSON.
    /// </summary>
    public static void Read(Stream utf8, UserFileSource source, string notACollection, Action<JsonElement> feature)
    {
        var buffer = new byte[1 << 16];
        int start = 0, end = 0;
        long before = 0; // bytes of the file before buffer[0]
        var final = false;
        var state = new JsonReaderState(new JsonReaderOptions { MaxDepth = 64 });
        var phase = Phase.Root;
        var typed = false;
        var featured = false;
        while (true)
        {
            var reader = new Utf8JsonReader(buffer.AsSpan(start, end - start), final, state);
            var checkpoint = (State: state, Consumed: 0L);
            var more = false;
            try
            {
                while (!more && phase != Phase.After)
                {
                    checkpoint = (reader.CurrentState, reader.BytesConsumed);
                    if (!reader.Read())
                    {
                        more = true;
                        break;
                    }

                    switch (phase)
                    {
                        case Phase.Root:
                            phase = reader.TokenType == JsonTokenType.StartObject ? Phase.Members : throw new InvalidDataException(notACollection);
                            break;
                        case Phase.Members when reader.TokenType == JsonTokenType.EndObject:
                            phase = Phase.After;
                            break;
                        case Phase.Members:
                            var name = reader.GetString();
                            if (!(name switch { "type" => reader.Read(), "features" => reader.Read(), _ => reader.TrySkip() }))
                            {
                                more = true; // the value is not all in the buffer: back to its name
                            }
                            else if (name == "type")
                            {
                                typed = reader.TokenType == JsonTokenType.String && reader.ValueTextEquals("FeatureCollection") ? true : throw new InvalidDataException(notACollection);
                            }
                            else if (name == "features")
                            {
                                (featured, phase) = reader.TokenType == JsonTokenType.StartArray ? (true, Phase.Features) : throw new InvalidDataException(notACollection);
                            }

                            break;
                        case Phase.Features when reader.TokenType == JsonTokenType.EndArray:
                            phase = Phase.Members;
                            break;
                        case Phase.Features:
                            if (!JsonDocument.TryParseValue(ref reader, out var document))
                            {
                                more = true;
                                break;
                            }

                            using (document)
                            {
                                feature(document.RootElement);
                            }

                            break;
                    }
                }

                if (phase == Phase.After)
                {
                    // Nothing but white space may follow the root (the reader says so once the file has ended).
                    while (reader.Read())
                    {
                    }

                    if (final)
                    {
                        if (!typed || !featured)
                        {
                            throw new InvalidDataException(notACollection);
                        }

                        return;
                    }

                    checkpoint = (reader.CurrentState, reader.BytesConsumed);
                    more = true;
                }
            }
            catch (JsonException e)
            {
                // System.Text.Json's message quotes the character it stopped at.
                throw new InvalidDataException(source.Quotable
                    ? $"{source}: not JSON (line {e.LineNumber + 1}: {e.Message})."
                    : $"{source}: not JSON (line {e.LineNumber + 1}, byte {e.BytePositionInLine + 1} of the line).", e);
            }

            if (final)
            {
                throw new InvalidDataException($"{source}: not JSON (it ends inside its root object).");
            }

            // Back to the checkpoint; keep what is unread, and read more after it.
            state = checkpoint.State;
            start += (int)checkpoint.Consumed;
            before += start;
            Buffer.BlockCopy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
            if (end == buffer.Length)
            {
                if (end > source.MaxRecordBytes)
                {
                    throw new FileTooLargeException(string.Create(CultureInfo.InvariantCulture,
                        $"{source}: the {(phase == Phase.Features ? "feature" : "value")} at byte {before:N0} is longer than {source.MaxRecordBytes:N0} bytes, the longest record a file may have here ({UserFileSource.MaxRecordBytesKey}); nothing of it is stored."));
                }

                Array.Resize(ref buffer, (int)Math.Min(buffer.Length * 2L, source.MaxRecordBytes + 1));
            }

            var read = utf8.Read(buffer, end, buffer.Length - end);
            final = read == 0;
            end += read;
        }
    }
}
