namespace Salsa.Contracts.Operations;

/// <summary>Reading parameters the way proto3 messages take them.</summary>
public static class StepContextExtensions
{
    /// <summary>A string parameter, or "" when the workflow did not set it (proto3's "not given").</summary>
    public static string TextOrEmpty(this IStepContext context, string name)
    {
        ArgumentNullException.ThrowIfNull(context);
        return context.HasParameter(name) ? context.Parameter<string>(name) : string.Empty;
    }
}
