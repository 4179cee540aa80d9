using System.Collections;
using System.Collections.Concurrent;
using System.Globalization;
using System.Reflection;
using System.Text.Json.Nodes;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Salsa.Contracts.Common;

namespace Salsa.Contracts.Operations;

/// <summary>
/// An operation's parameters as its request message declares them — the one place they are written
/// (<c>salsa.common.v1.parameter</c> on each field, proto/salsa/common/v1/parameters.proto). From it
/// come the workflow operation reference, the checks every face applies, a step's request and the
/// algorithm's options, each by the message's descriptor: a new field is picked up everywhere, and no
/// parameter is named by a string outside its message.
/// </summary>
public static class RequestParameters
{
    private static readonly ConcurrentDictionary<MessageDescriptor, RequestField[]> s_fields = new();

    private static readonly JsonParser s_parser = new(JsonParser.Settings.Default);

    /// <summary>The fields of <paramref name="message"/> that carry rules: parameters and inputs, in declaration order.</summary>
    public static IReadOnlyList<RequestField> Fields(MessageDescriptor message)
    {
        ArgumentNullException.ThrowIfNull(message);
        return s_fields.GetOrAdd(message, static m =>
            [.. m.Fields.InDeclarationOrder().Select(f => (Field: f, Rule: f.GetOptions()?.GetExtension(ParametersExtensions.Parameter))).Where(x => x.Rule is not null).Select(x => new RequestField(x.Field, x.Rule!))]);
    }

    /// <summary>Whether the message declares its fields' rules (a request whose REST body and checks come from them).</summary>
    public static bool IsRequest(MessageDescriptor message) => Fields(message).Count > 0;

    /// <summary>
    /// The workflow parameters of <typeparamref name="TRequest"/>: names, kinds, help and bounds from
    /// its fields, defaults from <paramref name="defaults"/> (the algorithm's options: the property of
    /// the same name), configured bounds from <paramref name="limits"/>.
    /// </summary>
    public static IReadOnlyList<ParameterSpec> Describe<TRequest>(object? defaults, Func<Limit, double?> limits)
        where TRequest : IMessage<TRequest>, new()
    {
        ArgumentNullException.ThrowIfNull(limits);
        return [.. Fields(new TRequest().Descriptor).Where(f => !f.IsInput).Select(f => f.Describe(defaults, limits))];
    }

    /// <summary>
    /// Checks <paramref name="request"/> against its fields' rules — required, bounds, allowed values,
    /// finite numbers — so bad input is refused with its field's name before any work; the configured
    /// limits are checked by the service (<c>ServiceLimits.CheckParameters</c>).
    /// </summary>
    public static void Check(IMessage request)
    {
        ArgumentNullException.ThrowIfNull(request);
        foreach (var field in Fields(request.Descriptor))
        {
            field.Check(request);
        }
    }

    /// <summary>
    /// A step's request: its parameters (set, or their defaults) and inputs, each into the field of
    /// its name, read as the proto3 JSON mapping reads a REST body.
    /// </summary>
    public static TRequest Request<TRequest>(this IStepContext context)
        where TRequest : IMessage<TRequest>, new()
    {
        ArgumentNullException.ThrowIfNull(context);
        var body = new JsonObject();
        foreach (var field in Fields(new TRequest().Descriptor))
        {
            if (field.IsInput ? context.HasInput(field.Rule.Input) : context.HasParameter(field.Name))
            {
                body[field.Name] = (field.IsInput ? context.Input(field.Rule.Input) : context.Parameter<JsonNode>(field.Name)).DeepClone();
            }
        }

        return s_parser.Parse<TRequest>(body.ToJsonString());
    }

    /// <summary>
    /// <paramref name="defaults"/> (the algorithm's options, as the service sets what is its own)
    /// with each parameter the request sets in the property of the same name; a parameter left unset
    /// keeps the default. Throws when a parameter has no such property: the options are the
    /// algorithm's side of the same definition.
    /// </summary>
    public static TOptions Bind<TOptions>(IMessage request, TOptions defaults)
        where TOptions : class
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(defaults);
        var options = Clone(defaults);
        foreach (var field in Fields(request.Descriptor).Where(f => !f.IsInput))
        {
            var property = typeof(TOptions).GetProperty(field.Descriptor.PropertyName, BindingFlags.Public | BindingFlags.Instance)
                ?? throw new InvalidOperationException($"{typeof(TOptions).Name} has no property {field.Descriptor.PropertyName} for {request.Descriptor.Name}.{field.Name}.");
            if (field.IsSet(request))
            {
                property.SetValue(options, Convert(field.Descriptor.Accessor.GetValue(request), property.PropertyType));
            }
        }

        return options;
    }

    private static TOptions Clone<TOptions>(TOptions options)
        where TOptions : class =>
        typeof(TOptions).GetMethod("<Clone>$", BindingFlags.Public | BindingFlags.Instance) is { } clone
            ? (TOptions)clone.Invoke(options, null)!
            : throw new InvalidOperationException($"{typeof(TOptions).Name} is not a record: options are bound on a copy.");

    private static object? Convert(object? value, Type target)
    {
        var type = Nullable.GetUnderlyingType(target) ?? target;
        if (value is IList list)
        {
            var element = type.IsArray ? type.GetElementType()! : type.GetGenericArguments()[0];
            var array = Array.CreateInstance(element, list.Count);
            for (var i = 0; i < list.Count; i++)
            {
                array.SetValue(System.Convert.ChangeType(list[i], element, CultureInfo.InvariantCulture), i);
            }

            return array;
        }

        return type.IsInstanceOfType(value) ? value : System.Convert.ChangeType(value, type, CultureInfo.InvariantCulture);
    }
}
