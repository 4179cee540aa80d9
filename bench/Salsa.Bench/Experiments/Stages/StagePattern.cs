namespace Salsa.Bench.Experiments.Stages;

/// <summary>Paper 001 figure 7: the message pattern between loosely synchronous stages.</summary>
public enum StagePattern
{
    /// <summary>Each computation posts to its own port (fig. 7a).</summary>
    Pipeline,

    /// <summary>Each computation posts to its right neighbour (fig. 7b).</summary>
    Shift,

    /// <summary>Two messages to the right neighbour, received together (fig. 7c).</summary>
    TwoShifts,

    /// <summary>One message to each neighbour, one received from each (fig. 7d).</summary>
    Exchange,
}

/// <summary>Runs a pattern: <c>computations</c> computations, each doing <c>stages</c> stages of <c>units</c> work units.</summary>
public interface IStagesRunner
{
    string Name { get; }

    string Description { get; }

    /// <summary>Seconds for the whole run. <paramref name="match"/>: one dispatcher thread per computation, else one per core.</summary>
    double Run(StagePattern pattern, int computations, bool match, int stages, int units);
}
