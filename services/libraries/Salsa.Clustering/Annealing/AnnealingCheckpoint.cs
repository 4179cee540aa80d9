using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

/// <summary>
/// The annealing loop's whole state at the start of a temperature: a run resumed from it
/// (<see cref="DeterministicAnnealing.Run(IPartitionGrid, AnnealingOptions, System.Threading.Channels.ChannelWriter{ClusteringProgress}?, AnnealingCheckpoint?, Action{AnnealingCheckpoint}?, CancellationToken)"/>)
/// takes the same steps and ends with the same bits as one that never stopped.
/// </summary>
public sealed record AnnealingCheckpoint
{
    public required double Temperature { get; init; }

    public required double MinTemperature { get; init; }

    public required double Spread { get; init; }

    /// <summary>Whether the step that led here split a cluster (the next convergence is held longer).</summary>
    public required bool SplitHere { get; init; }

    public required bool MergedHere { get; init; }

    /// <summary>Temperatures visited so far.</summary>
    public required int Visited { get; init; }

    public required int Clusters { get; init; }

    /// <summary>The centres, row-major.</summary>
    public required double[] Centres { get; init; }

    /// <summary>Log masses of the centre slots (−∞ for slots not in use).</summary>
    public required double[] LogMass { get; init; }

    /// <summary>
    /// Each centre slot's last principal axis (null where none was computed), where the next power
    /// iteration starts. Absent from checkpoints written before it was kept: such a run resumes from
    /// fixed starts, to the same clusters within the iteration's tolerance rather than the same bits.
    /// </summary>
    public double[]?[]? Axes { get; init; }

    /// <summary>The last split round's pairs, judged after the next convergence.</summary>
    public required AnnealingSplit[] Splits { get; init; }

    public required AnnealingStep[] Trajectory { get; init; }

    /// <summary>EM iterations so far.</summary>
    public required int Iterations { get; init; }
}

/// <summary>A split pair and the squared distance below which its children count as not separated.</summary>
public sealed record AnnealingSplit(int Parent, int Child, double Separation);
