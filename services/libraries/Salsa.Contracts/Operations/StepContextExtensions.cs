using System.Text.Json.Nodes;

namespace Salsa.Contracts.Operations;

/// <summary>
/// Reading a step's parameters and inputs by their specifications — an operation declares each once
/// (<see cref="ParameterSpec"/>, <see cref="InputSpec"/>) and reads it through that declaration,
/// never by a name written again — and the way proto3 messages take them.
/// </summary>
public static class StepContextExtensions
{
    /// <summary>Whether the workflow set <paramref name="parameter"/>, or it has a default.</summary>
    public static bool Has(this IStepContext context, ParameterSpec parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(parameter);
        return context.HasParameter(parameter.Name);
    }

    /// <summary><paramref name="parameter"/> as the workflow set it, or its default.</summary>
    public static T Get<T>(this IStepContext context, ParameterSpec parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(parameter);
        return context.Parameter<T>(parameter.Name);
    }

    /// <summary>The items of a list parameter, none when it is not set.</summary>
    public static IEnumerable<string> Strings(this IStepContext context, ParameterSpec parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(parameter);
        return context.Strings(parameter.Name);
    }

    /// <summary>A string parameter, or "" when the workflow did not set it (proto3's "not given").</summary>
    public static string TextOrEmpty(this IStepContext context, ParameterSpec parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(parameter);
        return context.HasParameter(parameter.Name) ? context.Parameter<string>(parameter.Name) : string.Empty;
    }

    /// <summary>Whether the step was given <paramref name="input"/>.</summary>
    public static bool Has(this IStepContext context, InputSpec input)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(input);
        return context.HasInput(input.Name);
    }

    public static JsonNode Input(this IStepContext context, InputSpec input)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(input);
        return context.Input(input.Name);
    }

    /// <summary>An input that is an id (a dataset's).</summary>
    public static string InputString(this IStepContext context, InputSpec input)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(input);
        return context.InputString(input.Name);
    }

    /// <summary>An input that is a service's job.</summary>
    public static JobAddress InputJob(this IStepContext context, InputSpec input)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(input);
        return context.InputJob(input.Name);
    }
}
