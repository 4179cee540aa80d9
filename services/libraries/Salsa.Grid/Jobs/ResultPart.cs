using System.Text;

namespace Salsa.Grid.Jobs;

/// <summary>
/// One part of a job's result (JSON), in order: a result is sent in parts of at most
/// <see cref="PartChars"/> characters, so one holding tens of millions of assignments never makes a
/// message past Orleans' limit on a message body (100 MB) or a call that outlasts the response
/// timeout.
/// </summary>
[GenerateSerializer, Immutable]
public sealed record ResultPart([property: Id(0)] string Text, [property: Id(1)] int Parts)
{
    /// <summary>Characters a part holds at most: 4 Mi, a few megabytes on the wire.</summary>
    public const int PartChars = 1 << 22;

    /// <summary>Part <paramref name="index"/> of <paramref name="result"/> cut into parts of <paramref name="partChars"/> characters.</summary>
    public static ResultPart Of(string result, int index, int partChars = PartChars)
    {
        ArgumentNullException.ThrowIfNull(result);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(partChars);
        var parts = Math.Max(1, (int)((result.Length + (long)partChars - 1) / partChars));
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, parts);
        var start = (long)index * partChars;
        return new ResultPart(result.Substring((int)start, (int)Math.Min(partChars, result.Length - start)), parts);
    }

    /// <summary>The whole result from its parts, asked for one after another by <paramref name="part"/>; null when there is none.</summary>
    public static async Task<string?> ReadAsync(Func<int, Task<ResultPart?>> part)
    {
        ArgumentNullException.ThrowIfNull(part);
        if (await part(0).ConfigureAwait(false) is not { } first)
        {
            return null;
        }

        if (first.Parts == 1)
        {
            return first.Text;
        }

        var whole = new StringBuilder(first.Text.Length * first.Parts);
        whole.Append(first.Text);
        for (var index = 1; index < first.Parts; index++)
        {
            var next = await part(index).ConfigureAwait(false) ?? throw new InvalidOperationException($"The result's part {index} of {first.Parts} is gone.");
            whole.Append(next.Text);
        }

        return whole.ToString();
    }
}
