using System.Globalization;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// A workflow that does not parse or validate; the errors found are listed, each with its line — the
/// first <see cref="MaxListed"/>, then one saying how many more, so an answer stays small however many
/// a text was made to hold.
/// </summary>
public sealed class WorkflowValidationException(string origin, IReadOnlyList<WorkflowError> errors)
    : ArgumentException($"{origin} is not a valid workflow:\n" + string.Join('\n', Listed(errors).Select(e => $"  {origin}:{e}")))
{
    /// <summary>The most errors listed one by one.</summary>
    public const int MaxListed = 50;

    /// <summary>The file name, or <c>inline</c>.</summary>
    public string Origin { get; } = origin;

    public IReadOnlyList<WorkflowError> Errors { get; } = Listed(errors);

    private static IReadOnlyList<WorkflowError> Listed(IReadOnlyList<WorkflowError> errors) =>
        errors.Count <= MaxListed ? errors
            : [.. errors.Take(MaxListed), new WorkflowError(errors[MaxListed].Line, errors[MaxListed].Column, string.Create(CultureInfo.InvariantCulture, $"… and {errors.Count - MaxListed:N0} more errors"))];
}
