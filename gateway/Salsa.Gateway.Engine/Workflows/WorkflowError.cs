using System.Globalization;

namespace Salsa.Gateway.Workflows;

/// <summary>One reason a workflow is not valid, with where it is; a message quoting a long name or value keeps its first and last words (at most <see cref="MaxMessageLength"/> characters).</summary>
public sealed record WorkflowError(int Line, int Column, string Message)
{
    public const int MaxMessageLength = 300;

    public string Message { get; init; } = Message.Length <= MaxMessageLength ? Message
        : string.Concat(Message.AsSpan(0, (MaxMessageLength / 2) - 1), "…", Message.AsSpan(Message.Length - (MaxMessageLength / 2)));

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Line}:{Column}: {Message}");
}
