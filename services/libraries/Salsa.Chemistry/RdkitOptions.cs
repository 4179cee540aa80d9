using System.ComponentModel.DataAnnotations;

namespace Salsa.Chemistry;

/// <summary>RDKit in a service: <c>Salsa:Rdkit</c>.</summary>
public sealed class RdkitOptions
{
    public const string Section = "Salsa:Rdkit";

    /// <summary>Which RDKit makes fingerprints (default: the pinned release, the same bits everywhere).</summary>
    public RdkitEngineChoice Engine { get; set; } = RdkitEngineChoice.Pinned;

    /// <summary>
    /// The longest RDKit may take on one molecule — reading it and making what was asked of it — before
    /// it is stopped and the molecule refused with that reason (default 30 s: a 10,000-atom peptide takes
    /// about 10 s on this project's 2-core machines). Applies to RDKit MinimalLib, the default; the
    /// system's C++ library, where chosen, cannot be stopped mid-molecule and is bounded by the call's budget.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00.010", "01:00:00")]
    public TimeSpan MoleculeBudget { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>The longest one call (an upload's molecules, a search's query) may take in all (default 30 min).</summary>
    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00")]
    public TimeSpan CallBudget { get; set; } = TimeSpan.FromMinutes(30);
}
