using System.Text.Json;
using Google.Protobuf.Reflection;
using Salsa.Contracts.Operations;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// A REST body read strictly before the proto3 JSON mapping reads it: a member the message does not
/// have, a required member missing, or a value of the wrong JSON type (a number in quotes, 1.5 for
/// an integer) is refused naming the member — as the body's OpenAPI schema says, where the mapping
/// itself would accept quoted numbers and name no member.
/// </summary>
internal static class RequestJson
{
    public static void Check(MessageDescriptor message, JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Object)
        {
            throw new JsonException($"The body must be a JSON object ({message.Name}); it is {Kind(body.ValueKind)}.");
        }

        foreach (var member in body.EnumerateObject())
        {
            var field = message.Fields.InDeclarationOrder().FirstOrDefault(f => f.JsonName == member.Name)
                ?? throw new JsonException($"'{member.Name}' is not a member of {message.Name}; its members are {string.Join(", ", message.Fields.InDeclarationOrder().Select(f => f.JsonName))}.");
            if (member.Value.ValueKind == JsonValueKind.Null)
            {
                continue;
            }

            if (field.IsRepeated)
            {
                if (member.Value.ValueKind != JsonValueKind.Array)
                {
                    throw new JsonException($"{field.JsonName} must be a JSON array; it is {Kind(member.Value.ValueKind)}.");
                }

                var index = 0;
                foreach (var item in member.Value.EnumerateArray())
                {
                    CheckValue(field, item, $"{field.JsonName}[{index++}]");
                }
            }
            else
            {
                CheckValue(field, member.Value, field.JsonName);
            }
        }

        foreach (var required in RequestParameters.Fields(message).Where(f => f.Rule.Required))
        {
            if (!body.TryGetProperty(required.Name, out var value) || value.ValueKind == JsonValueKind.Null)
            {
                throw new JsonException($"{required.Name} is required.");
            }
        }
    }

    private static void CheckValue(FieldDescriptor field, JsonElement value, string name)
    {
        var fits = field.FieldType switch
        {
            FieldType.Bool => value.ValueKind is JsonValueKind.True or JsonValueKind.False,
            FieldType.String or FieldType.Bytes or FieldType.Enum => value.ValueKind == JsonValueKind.String,
            FieldType.Double or FieldType.Float => value.ValueKind == JsonValueKind.Number,
            FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => value.ValueKind == JsonValueKind.Number && value.TryGetInt32(out _),
            FieldType.UInt32 or FieldType.Fixed32 => value.ValueKind == JsonValueKind.Number && value.TryGetUInt32(out _),
            FieldType.Message => value.ValueKind == JsonValueKind.Object,
            // 64-bit integers: a number or, as the mapping writes them, a string of digits.
            _ => value.ValueKind is JsonValueKind.Number or JsonValueKind.String,
        };
        if (!fits)
        {
            throw new JsonException($"{name} must be {Expected(field.FieldType)}; it is {(value.ValueKind == JsonValueKind.Number ? value.GetRawText() : Kind(value.ValueKind))}.");
        }
    }

    private static string Expected(FieldType type) => type switch
    {
        FieldType.Bool => "true or false",
        FieldType.String or FieldType.Bytes or FieldType.Enum => "a string",
        FieldType.Double or FieldType.Float => "a number",
        FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => "a whole number from -2147483648 to 2147483647",
        FieldType.UInt32 or FieldType.Fixed32 => "a whole number from 0 to 4294967295",
        FieldType.Message => "an object",
        _ => "a whole number",
    };

    private static string Kind(JsonValueKind kind) => kind switch
    {
        JsonValueKind.String => "a string",
        JsonValueKind.Number => "a number",
        JsonValueKind.Array => "an array",
        JsonValueKind.Object => "an object",
        JsonValueKind.True or JsonValueKind.False => "a boolean",
        _ => "null",
    };
}
