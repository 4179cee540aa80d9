using System.Globalization;
using System.Reflection;
using System.Text.Json.Nodes;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;
using Salsa.Contracts.Operations;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// Describes a protobuf message that a REST operation returns (as <see cref="ProtoJson"/> writes it)
/// from the message's descriptor: each field by its JSON name and the proto3 JSON mapping of its
/// type — so the OpenAPI document shows the same shape the gRPC contract declares.
/// </summary>
internal sealed class ProtoSchemas : IOpenApiSchemaTransformer
{
    public Task TransformAsync(OpenApiSchema schema, OpenApiSchemaTransformerContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(schema);
        ArgumentNullException.ThrowIfNull(context);
        if (DescriptorOf(context.JsonTypeInfo.Type) is not { } descriptor)
        {
            return Task.CompletedTask;
        }

        var described = RequestParameters.IsRequest(descriptor) ? DescribeRequest(descriptor) : Describe(descriptor, depth: 0);
        schema.Type = described.Type;
        schema.Properties = described.Properties;
        schema.Required = described.Required;
        schema.AdditionalPropertiesAllowed = false;
        return Task.CompletedTask;
    }

    // Nested messages are described inline; the contracts nest a few levels, never recursively.
    private const int MaxDepth = 8;

    private static OpenApiSchema Describe(MessageDescriptor message, int depth)
    {
        var fields = message.Fields.InDeclarationOrder();
        return new OpenApiSchema
        {
            Type = JsonSchemaType.Object,
            // Every field is written, zeros and empty lists included; a message field only when it is set.
            Required = new HashSet<string>(fields.Where(f => f.FieldType != FieldType.Message || f.IsRepeated).Select(f => f.JsonName), StringComparer.Ordinal),
            Properties = fields.ToDictionary(f => f.JsonName, f => (IOpenApiSchema)Field(f, depth), StringComparer.Ordinal),
        };
    }

    /// <summary>The descriptor of a protobuf message type (its generated static <c>Descriptor</c>), or null for any other type.</summary>
    public static MessageDescriptor? DescriptorOf(Type type) =>
        typeof(IMessage).IsAssignableFrom(type) ? type.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)?.GetValue(null) as MessageDescriptor : null;

    /// <summary>
    /// A request body: its fields' rules (parameters.proto) give what is required, the bounds, the
    /// allowed values and the help; a field that may be left out may also be null (the proto3 JSON
    /// mapping reads null as not given).
    /// </summary>
    private static OpenApiSchema DescribeRequest(MessageDescriptor message)
    {
        var rules = RequestParameters.Fields(message).ToDictionary(f => f.Descriptor.FieldNumber);
        var fields = message.Fields.InDeclarationOrder();
        return new OpenApiSchema
        {
            Type = JsonSchemaType.Object,
            Required = new HashSet<string>(fields.Where(f => rules.TryGetValue(f.FieldNumber, out var r) && r.Rule.Required).Select(f => f.JsonName), StringComparer.Ordinal),
            Properties = fields.ToDictionary(f => f.JsonName, f => (IOpenApiSchema)RequestField(f, rules.GetValueOrDefault(f.FieldNumber)), StringComparer.Ordinal),
        };
    }

    private static OpenApiSchema RequestField(FieldDescriptor field, RequestField? rules)
    {
        var schema = Field(field, depth: 0);
        if (rules?.Rule is not { } rule)
        {
            return schema;
        }

        var value = field.IsRepeated ? (OpenApiSchema)schema.Items! : schema;
        value.Minimum = rule.HasMinimum ? Number(rule.Minimum) : null;
        value.Maximum = rule.HasMaximum ? Number(rule.Maximum) : null;
        value.ExclusiveMinimum = rule.HasExclusiveMinimum ? Number(rule.ExclusiveMinimum) : null;
        value.ExclusiveMaximum = rule.HasExclusiveMaximum ? Number(rule.ExclusiveMaximum) : null;
        value.Format = rule.Format.Length > 0 ? rule.Format : value.Format;
        value.Enum = rule.Allowed.Count > 0 ? [.. rule.Allowed.Select(a => (JsonNode)a)] : value.Enum;
        schema.Description = rule.Help.Length > 0 ? rule.Help : null;
        if (!rule.Required)
        {
            schema.Type |= JsonSchemaType.Null;
        }

        return schema;
    }

    private static string Number(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static OpenApiSchema Field(FieldDescriptor field, int depth)
    {
        if (field.IsMap)
        {
            return new OpenApiSchema { Type = JsonSchemaType.Object, AdditionalProperties = Value(field.MessageType.FindFieldByNumber(2), depth) };
        }

        var value = Value(field, depth);
        return field.IsRepeated ? new OpenApiSchema { Type = JsonSchemaType.Array, Items = value } : value;
    }

    private static OpenApiSchema Value(FieldDescriptor field, int depth) => field.FieldType switch
    {
        FieldType.Double => new OpenApiSchema { Type = JsonSchemaType.Number, Format = "double" },
        FieldType.Float => new OpenApiSchema { Type = JsonSchemaType.Number, Format = "float" },
        FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => new OpenApiSchema { Type = JsonSchemaType.Integer, Format = "int32" },
        FieldType.UInt32 or FieldType.Fixed32 => new OpenApiSchema { Type = JsonSchemaType.Integer, Format = "int64", Minimum = "0" },
        // The proto3 JSON mapping writes 64-bit integers as strings.
        FieldType.Int64 or FieldType.SInt64 or FieldType.SFixed64 or FieldType.UInt64 or FieldType.Fixed64 =>
            new OpenApiSchema { Type = JsonSchemaType.String, Format = "int64", Pattern = "^-?[0-9]+$" },
        FieldType.Bool => new OpenApiSchema { Type = JsonSchemaType.Boolean },
        FieldType.String => new OpenApiSchema { Type = JsonSchemaType.String },
        FieldType.Bytes => new OpenApiSchema { Type = JsonSchemaType.String, Format = "byte" },
        FieldType.Enum => new OpenApiSchema { Type = JsonSchemaType.String, Enum = [.. field.EnumType.Values.Select(v => (JsonNode)v.Name)] },
        FieldType.Message when depth < MaxDepth => Describe(field.MessageType, depth + 1),
        _ => new OpenApiSchema { Type = JsonSchemaType.Object },
    };
}
