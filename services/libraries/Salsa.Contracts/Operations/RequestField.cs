using System.Collections;
using System.Globalization;
using System.Text.Json.Nodes;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Salsa.Contracts.Common;

namespace Salsa.Contracts.Operations;

/// <summary>One field of a request message with its rules.</summary>
public sealed class RequestField(FieldDescriptor descriptor, Parameter rule)
{
    public FieldDescriptor Descriptor { get; } = descriptor;

    public Parameter Rule { get; } = rule;

    /// <summary>Its name in JSON, in a workflow step and in errors.</summary>
    public string Name => Descriptor.JsonName;

    /// <summary>Filled from a step's input (<see cref="Parameter.Input"/>), not a workflow parameter.</summary>
    public bool IsInput => Rule.Input.Length > 0;

    /// <summary>Whether the request gives the field: present when it has presence, otherwise not zero and not empty.</summary>
    public bool IsSet(IMessage request)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (Descriptor.IsRepeated)
        {
            return ((IList)Descriptor.Accessor.GetValue(request)).Count > 0;
        }

        return Descriptor.HasPresence ? Descriptor.Accessor.HasValue(request) : !IsZero(Descriptor.Accessor.GetValue(request));
    }

    public ParameterKind Kind => (Descriptor.FieldType, Descriptor.IsRepeated) switch
    {
        (FieldType.String, true) => ParameterKind.StringList,
        (_, true) => ParameterKind.NumberList,
        (FieldType.Bool, _) => ParameterKind.Boolean,
        (FieldType.Double or FieldType.Float, _) => ParameterKind.Number,
        (FieldType.String, _) => ParameterKind.String,
        _ => ParameterKind.Integer,
    };

    /// <summary>The most the value may be under <paramref name="limits"/>: the lower of its own maximum and its configured limit.</summary>
    public double? Maximum(Func<Limit, double?> limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        var configured = Rule.Limit == Limit.Unspecified ? null : limits(Rule.Limit);
        return (Rule.HasMaximum ? Rule.Maximum : (double?)null, configured) switch
        {
            ({ } own, { } limit) => Math.Min(own, limit),
            (var own, var limit) => own ?? limit,
        };
    }

    internal ParameterSpec Describe(object? defaults, Func<Limit, double?> limits) => new(Name, Kind, Rule.Help)
    {
        Required = Rule.Required,
        Default = Rule.Required ? null : DefaultIn(defaults),
        Minimum = Rule.HasMinimum ? Rule.Minimum : null,
        Maximum = Maximum(limits),
        ExclusiveMinimum = Rule.HasExclusiveMinimum ? Rule.ExclusiveMinimum : null,
        ExclusiveMaximum = Rule.HasExclusiveMaximum ? Rule.ExclusiveMaximum : null,
        Allowed = Rule.Allowed.Count > 0 ? [.. Rule.Allowed] : null,
    };

    private JsonNode? DefaultIn(object? defaults) =>
        defaults?.GetType().GetProperty(Descriptor.PropertyName)?.GetValue(defaults) switch
        {
            null => null,
            int i => i,
            long l => l,
            double d => d,
            bool b => b,
            string s => s,
            var other => JsonValue.Create(other.ToString()),
        };

    internal void Check(IMessage request)
    {
        if (!IsSet(request))
        {
            if (Rule.Required)
            {
                // Without presence, a zero is what a missing field reads as: say what it must be.
                throw new InvalidParameterException(Name, !Descriptor.HasPresence && Broken(0) is { } rule ? $"{Name} must {rule}; it is 0." : $"{Name} is required.");
            }

            return;
        }

        var value = Descriptor.Accessor.GetValue(request);
        if (value is IList list)
        {
            for (var i = 0; i < list.Count; i++)
            {
                CheckValue(list[i], $"{Name}[{i}]");
            }
        }
        else
        {
            CheckValue(value, Name);
        }
    }

    private void CheckValue(object? value, string name)
    {
        if (value is string text)
        {
            if (Rule.Allowed.Count > 0 && !Rule.Allowed.Contains(text))
            {
                throw new InvalidParameterException(Name, $"{name} must be one of {string.Join(", ", Rule.Allowed)}; it is '{text}'.");
            }

            return;
        }

        if (value is not (int or long or uint or ulong or double or float))
        {
            return;
        }

        var number = System.Convert.ToDouble(value, CultureInfo.InvariantCulture);
        var shown = System.Convert.ToString(value, CultureInfo.InvariantCulture);
        if (!double.IsFinite(number))
        {
            throw new InvalidParameterException(Name, $"{name} must be a finite number; it is {shown}.");
        }

        if (Broken(number) is { } rule)
        {
            throw new InvalidParameterException(Name, $"{name} must {rule}; it is {shown}.");
        }
    }

    /// <summary>The rule a number breaks, in words (both bounds together when it has two), or null.</summary>
    private string? Broken(double number)
    {
        var (min, max) = (Rule.HasMinimum ? Rule.Minimum : (double?)null, Rule.HasMaximum ? Rule.Maximum : (double?)null);
        var (above, below) = (Rule.HasExclusiveMinimum ? Rule.ExclusiveMinimum : (double?)null, Rule.HasExclusiveMaximum ? Rule.ExclusiveMaximum : (double?)null);
        var breaks = number < min || number > max || number <= above || number >= below;
        return !breaks ? null : (min, max, above, below) switch
        {
            ({ } lo, { } hi, _, _) => Invariant($"be between {lo} and {hi}"),
            (_, _, { } lo, { } hi) => Invariant($"lie strictly between {lo} and {hi}"),
            (0, _, _, _) when number < 0 => "not be negative",
            ({ } lo, _, _, _) when number < lo => Invariant($"be at least {lo}"),
            (_, { } hi, _, _) when number > hi => Invariant($"be at most {hi}"),
            (_, _, 0, _) when number <= 0 => "be positive",
            (_, _, { } lo, _) when number <= lo => Invariant($"be above {lo}"),
            _ => Invariant($"be below {below}"),
        };
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    private static bool IsZero(object? value) => value switch
    {
        null => true,
        string s => s.Length == 0,
        bool b => !b,
        int i => i == 0,
        long l => l == 0,
        uint u => u == 0,
        ulong u => u == 0,
        double d => d == 0,
        float f => f == 0,
        ByteString bytes => bytes.IsEmpty,
        Enum e => System.Convert.ToInt32(e, CultureInfo.InvariantCulture) == 0,
        _ => false,
    };
}
