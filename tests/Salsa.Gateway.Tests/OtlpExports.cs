using System.Buffers.Binary;
using System.Text;

namespace Salsa.Gateway.Tests;

/// <summary>A span as an OTLP export carried it, with the <c>service.name</c> of the resource it came under.</summary>
internal sealed record ExportedSpan(string Service, string TraceId, string SpanId, string? ParentSpanId, string Name, ExportedSpan.SpanKind Kind, IReadOnlyDictionary<string, object> Attributes)
{
    public ulong StartNanoseconds { get; init; }

    public ulong EndNanoseconds { get; init; }

    public double DurationMs => (EndNanoseconds - StartNanoseconds) / 1e6;

    public IReadOnlyList<(string Name, IReadOnlyDictionary<string, object> Attributes)> Events { get; init; } = [];

    /// <summary>The spans this one links to: (trace id, span id).</summary>
    public IReadOnlyList<(string TraceId, string SpanId)> Links { get; init; } = [];

    public enum SpanKind
    {
        Unspecified = 0,
        Internal = 1,
        Server = 2,
        Client = 3,
        Producer = 4,
        Consumer = 5,
    }

    public override string ToString() => $"{Name} [{Kind}, {Service}, {SpanId}]";
}

/// <summary>
/// Reads OTLP/HTTP protobuf export requests off the wire, by the field numbers of opentelemetry-proto:
/// <c>Export{Trace,Metrics}ServiceRequest</c> (resource_spans / resource_metrics = 1) →
/// <c>Resource{Spans,Metrics}</c> (resource = 1, scope_spans / scope_metrics = 2) →
/// <c>Scope{Spans,Metrics}</c> (spans / metrics = 2) → <c>Span</c> (trace_id = 1, span_id = 2,
/// parent_span_id = 4, name = 5, kind = 6, start_time_unix_nano = 7, end_time_unix_nano = 8,
/// attributes = 9, events = 11: name = 2, attributes = 3, links = 13: trace_id = 1, span_id = 2) or
/// <c>Metric</c> (name = 1);
/// <c>Resource</c> (attributes = 1), <c>KeyValue</c> (key = 1, value = 2), <c>AnyValue</c>
/// (string_value = 1, bool_value = 2, int_value = 3, double_value = 4).
/// </summary>
internal static class OtlpExports
{
    public static IEnumerable<ExportedSpan> Spans(byte[] request) =>
        Items(request).Select(item => ReadSpan(item.Service, item.Data));

    /// <summary>(service.name, body, trace id) of every log record in a logs export (LogRecord: body = 5, trace_id = 9).</summary>
    public static IEnumerable<(string Service, string Body, string? TraceId)> Logs(byte[] request) =>
        Items(request).Select(item =>
        {
            var fields = Fields(item.Data);
            var body = fields.FirstOrDefault(f => f.Number == 5).Bytes is { Array: not null } value && Fields(value).FirstOrDefault(f => f.Number == 1).Bytes is { Array: not null } text
                ? Encoding.UTF8.GetString(text)
                : "";
            var trace = fields.FirstOrDefault(f => f.Number == 9 && f.Bytes.Count > 0) is { Bytes.Array: not null } t ? Convert.ToHexStringLower(t.Bytes.AsSpan()) : null;
            return (item.Service, body, trace);
        });

    /// <summary>(service.name, metric name) of every metric in a metrics export.</summary>
    public static IEnumerable<(string Service, string Metric)> Metrics(byte[] request) =>
        Items(request).Select(item => (item.Service, Encoding.UTF8.GetString(Fields(item.Data).First(f => f.Number == 1).Bytes)));

    // The shape traces and metrics share: resources, each with its scopes, each with its items.
    private static IEnumerable<(string Service, ArraySegment<byte> Data)> Items(byte[] request)
    {
        foreach (var resourceItems in Fields(request).Where(f => f.Number == 1))
        {
            var fields = Fields(resourceItems.Bytes);
            var resource = fields.Where(f => f.Number == 1).Select(f => Attributes(f.Bytes, 1)).SingleOrDefault() ?? [];
            var service = resource.GetValueOrDefault("service.name") as string ?? "";
            foreach (var scope in fields.Where(f => f.Number == 2))
            {
                foreach (var item in Fields(scope.Bytes).Where(f => f.Number == 2))
                {
                    yield return (service, item.Bytes);
                }
            }
        }
    }

    private static ExportedSpan ReadSpan(string service, ArraySegment<byte> span)
    {
        var fields = Fields(span);
        string? Hex(int number) => fields.FirstOrDefault(f => f.Number == number && f.Bytes.Count > 0) is { Bytes.Array: not null } f
            ? Convert.ToHexStringLower(f.Bytes.AsSpan())
            : null;
        return new ExportedSpan(
            service,
            Hex(1) ?? "",
            Hex(2) ?? "",
            Hex(4),
            Encoding.UTF8.GetString(fields.FirstOrDefault(f => f.Number == 5).Bytes),
            (ExportedSpan.SpanKind)(int)fields.FirstOrDefault(f => f.Number == 6).Value,
            Attributes(span, 9))
        {
            StartNanoseconds = fields.FirstOrDefault(f => f.Number == 7).Value,
            EndNanoseconds = fields.FirstOrDefault(f => f.Number == 8).Value,
            Links = [.. fields.Where(f => f.Number == 13).Select(l => Fields(l.Bytes)).Select(l => (Convert.ToHexStringLower(l.First(f => f.Number == 1).Bytes.AsSpan()), Convert.ToHexStringLower(l.First(f => f.Number == 2).Bytes.AsSpan())))],
            Events = [.. fields.Where(f => f.Number == 11).Select(e => (Encoding.UTF8.GetString(Fields(e.Bytes).FirstOrDefault(f => f.Number == 2).Bytes), (IReadOnlyDictionary<string, object>)Attributes(e.Bytes, 3)))],
        };
    }

    /// <summary>The message's repeated KeyValue field as key → string, bool, long or double.</summary>
    private static Dictionary<string, object> Attributes(ArraySegment<byte> message, int number)
    {
        var attributes = new Dictionary<string, object>(StringComparer.Ordinal);
        foreach (var keyValue in Fields(message).Where(f => f.Number == number))
        {
            var pair = Fields(keyValue.Bytes);
            var key = Encoding.UTF8.GetString(pair.First(f => f.Number == 1).Bytes);
            if (pair.FirstOrDefault(f => f.Number == 2).Bytes is { Array: not null } anyValue && Fields(anyValue).FirstOrDefault() is { Number: > 0 } value)
            {
                attributes[key] = value.Number switch
                {
                    1 => Encoding.UTF8.GetString(value.Bytes),
                    2 => value.Value != 0,
                    3 => (long)value.Value,
                    4 => BitConverter.UInt64BitsToDouble(value.Value),
                    _ => value.Bytes.ToArray(), // array, kvlist, bytes: not looked into
                };
            }
        }

        return attributes;
    }

    /// <summary>A message's fields in order: a varint or fixed number, or a length-delimited slice.</summary>
    private static List<(int Number, ulong Value, ArraySegment<byte> Bytes)> Fields(ArraySegment<byte> message)
    {
        var fields = new List<(int, ulong, ArraySegment<byte>)>();
        var data = message.AsSpan();
        var at = 0;
        while (at < data.Length)
        {
            var key = Varint(data, ref at);
            var number = (int)(key >> 3);
            switch (key & 7)
            {
                case 0:
                    fields.Add((number, Varint(data, ref at), default));
                    break;
                case 1:
                    fields.Add((number, BinaryPrimitives.ReadUInt64LittleEndian(data[at..]), default));
                    at += 8;
                    break;
                case 2:
                    var length = (int)Varint(data, ref at);
                    fields.Add((number, 0, message.Slice(at, length)));
                    at += length;
                    break;
                case 5:
                    fields.Add((number, BinaryPrimitives.ReadUInt32LittleEndian(data[at..]), default));
                    at += 4;
                    break;
                default:
                    throw new InvalidDataException($"Wire type {key & 7} of field {number} is not one OTLP uses.");
            }
        }

        return fields;
    }

    private static ulong Varint(ReadOnlySpan<byte> data, ref int at)
    {
        ulong value = 0;
        for (var shift = 0; ; shift += 7)
        {
            var b = data[at++];
            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }
        }
    }
}
