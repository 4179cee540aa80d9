namespace Salsa.Bench.Harness;

/// <summary>One reproducible experiment: <c>dotnet run -c Release --project bench/Salsa.Bench -- &lt;name&gt; [--quick]</c>.</summary>
public interface IExperiment
{
    /// <summary>Command-line name, also the results' file name.</summary>
    string Name { get; }

    /// <summary>One line: which seed table or figure it reproduces.</summary>
    string Description { get; }

    Task RunAsync(ExperimentContext context, CancellationToken cancellationToken);
}
