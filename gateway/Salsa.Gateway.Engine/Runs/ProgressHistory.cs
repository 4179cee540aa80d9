namespace Salsa.Gateway.Runs;

internal static class ProgressHistory
{
    /// <summary><paramref name="history"/> with <paramref name="progress"/> after it; when that passes the limit, every other point dropped (the first and the new one kept).</summary>
    public static IReadOnlyList<StepProgress> Append(IReadOnlyList<StepProgress> history, StepProgress progress)
    {
        if (history.Count < StepView.ProgressHistoryLimit)
        {
            return [.. history, progress];
        }

        var thinned = new List<StepProgress>(StepView.ProgressHistoryLimit / 2 + 1);
        for (var i = 0; i < history.Count; i += 2)
        {
            thinned.Add(history[i]);
        }

        thinned.Add(progress);
        return thinned;
    }
}
