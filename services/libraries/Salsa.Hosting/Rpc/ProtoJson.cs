using System.Text.Json;
using System.Text.Json.Serialization;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Salsa.Contracts.Operations;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// Writes and reads protobuf messages as their canonical JSON (the proto3 JSON mapping gRPC's JSON
/// transcoding uses: lowerCamelCase names, 64-bit integers as strings, every field written, zeros
/// and empty lists included, a message field only when set). With it a job's result is one shape everywhere: the message gRPC
/// returns is the JSON REST returns and the job record keeps.
/// </summary>
public sealed class ProtoJson : JsonConverterFactory
{
    private static readonly JsonFormatter s_formatter = new(JsonFormatter.Settings.Default.WithFormatDefaultValues(true));

    private static readonly JsonParser s_parser = new(JsonParser.Settings.Default);

    /// <summary>The message as canonical JSON.</summary>
    public static string Format(IMessage message) => s_formatter.Format(message);

    public override bool CanConvert(Type typeToConvert) => typeof(IMessage).IsAssignableFrom(typeToConvert);

    public override JsonConverter CreateConverter(Type typeToConvert, JsonSerializerOptions options) =>
        (JsonConverter)Activator.CreateInstance(typeof(MessageConverter<>).MakeGenericType(typeToConvert))!;

    private sealed class MessageConverter<T> : JsonConverter<T>
        where T : IMessage<T>, new()
    {
        private static readonly MessageDescriptor s_descriptor = new T().Descriptor;

        public override T Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            using var document = JsonDocument.ParseValue(ref reader);
            if (RequestParameters.IsRequest(s_descriptor))
            {
                RequestJson.Check(s_descriptor, document.RootElement);
            }

            try
            {
                return s_parser.Parse<T>(document.RootElement.GetRawText());
            }
            catch (Exception e) when (e is InvalidProtocolBufferException or InvalidJsonException)
            {
                throw new JsonException($"Not a {typeof(T).Name} in the proto3 JSON mapping: {e.Message}", e);
            }
        }

        public override void Write(Utf8JsonWriter writer, T value, JsonSerializerOptions options) => writer.WriteRawValue(s_formatter.Format(value));
    }
}
