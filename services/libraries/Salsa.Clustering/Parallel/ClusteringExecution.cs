using System.Diagnostics.CodeAnalysis;
using System.Text.Json.Serialization;
using Salsa.Ccr;

namespace Salsa.Clustering.Parallel;

/// <summary>How an algorithm runs in parallel.</summary>
public sealed record ParallelismOptions
{
    /// <summary>SPMD ranks (one per core by default). Results do not depend on it.</summary>
    public int Ranks { get; init; } = Environment.ProcessorCount;

    /// <summary>
    /// The dispatcher to run ranks on, with at least <see cref="Ranks"/> threads; a service passes its
    /// own. When null, one is created for the run. A process's own: options that travel (a grid
    /// job's) leave it out.
    /// </summary>
    [JsonIgnore]
    public Dispatcher? Dispatcher { get; init; }

    /// <summary>
    /// Points per block, the unit of deterministic partial sums; by default chosen from the data size
    /// and the model size (never from the number of ranks, so results do not depend on it).
    /// </summary>
    public int? BlockSize { get; init; }

    public void Validate()
    {
        if (Ranks is < 1 or > Spmd.MaxSize)
        {
            throw RequestNames.Invalid(nameof(Ranks), $"must be between 1 and {Spmd.MaxSize}; it is {Ranks}.");
        }

        if (BlockSize is < 1)
        {
            throw RequestNames.Invalid(nameof(BlockSize), $"must be at least 1; it is {BlockSize}.");
        }
    }
}

/// <summary>Runs an algorithm's ranks with cancellation and error reporting shared by all algorithms.</summary>
internal static class ClusteringExecution
{
    [SuppressMessage("Design", "CA1068", Justification = "The rank body, usually a multi-line lambda, reads best last.")]
    public static void Run(ParallelismOptions options, CancellationToken cancellationToken, Action<Communicator> rank)
    {
        options.Validate();
        cancellationToken.ThrowIfCancellationRequested();
        var spmd = new SpmdOptions { Dispatcher = options.Dispatcher, CancellationToken = cancellationToken };
        try
        {
            Spmd.Run(options.Ranks, rank, spmd);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw new OperationCanceledException("The clustering run was cancelled.", cancellationToken);
        }
    }

    /// <summary>Runs on a thread of its own so the caller's thread (a request, a job loop) is never held.</summary>
    public static Task<T> RunAsync<T>(Func<T> run, CancellationToken cancellationToken) =>
        Task.Factory.StartNew(run, cancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
