using Salsa.Store;

namespace Salsa.Grid.Jobs;

/// <summary>A coordinator's persisted state: what it runs, how far it got, how it ended.</summary>
[GenerateSerializer]
public sealed class GridJobState<TSpec>
    where TSpec : class
{
    [Id(0)] public TSpec? Spec { get; set; }

    /// <summary>Null until the job starts.</summary>
    [Id(1)] public JobState? Status { get; set; }

    /// <summary>The last checkpoint (the algorithm's checkpoint as JSON) while running.</summary>
    [Id(2)] public string? Checkpoint { get; set; }

    /// <summary>The result (the algorithm's result as JSON) once succeeded.</summary>
    [Id(3)] public string? Result { get; set; }

    [Id(4)] public string? Error { get; set; }

    [Id(5)] public int Resumes { get; set; }

    [Id(6)] public int Checkpoints { get; set; }

    /// <summary>Pass statistics up to the last checkpoint (of earlier activations included).</summary>
    [Id(7)] public PassStatistics Passes { get; set; } = PassStatistics.None;

    /// <summary>The silos of the latest checkpoint's passes.</summary>
    [Id(8)] public string[] Silos { get; set; } = [];

    /// <summary>Silos of earlier checkpoints (and activations) that the latest does not use.</summary>
    [Id(10)] public string[] FormerSilos { get; set; } = [];

    /// <summary>The caller's W3C trace parent, so a resumed run's spans join the same trace.</summary>
    [Id(9)] public string? TraceParent { get; set; }
}
