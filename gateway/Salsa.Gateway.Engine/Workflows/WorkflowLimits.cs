using System.ComponentModel.DataAnnotations;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// How large a workflow the gateway reads, from <c>Gateway:Workflows</c>. A workflow beyond one is
/// refused before it is validated (413 / RESOURCE_EXHAUSTED, naming the limit and its key).
/// </summary>
public sealed class WorkflowLimits
{
    public const string Section = "Gateway:Workflows";

    /// <summary>The YAML's size in UTF-8 bytes (the shipped workflows are about 2 KB).</summary>
    [Range(1, int.MaxValue)]
    public int MaxBytes { get; set; } = 256 * 1024;

    /// <summary>Steps in one workflow (the shipped ones have up to 8).</summary>
    [Range(1, int.MaxValue)]
    public int MaxSteps { get; set; } = 500;

    /// <summary>Steps that may depend on one step (through its outputs or <c>after</c>).</summary>
    [Range(1, int.MaxValue)]
    public int MaxFanOut { get; set; } = 64;

    /// <summary>
    /// Nodes (scalars, lists, mappings) the YAML holds once every alias is read as the node its anchor
    /// names — counted from the text before any node is built, so a few hundred bytes of nested aliases
    /// cannot grow into millions of values (the shipped workflows have about 150).
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxNodes { get; set; } = 200_000;

    /// <summary>
    /// Bytes (UTF-8) of every scalar — names, values, keys — once every alias is read as the node its
    /// anchor names: one long value repeated by thousands of aliases is refused before it is copied
    /// (the shipped workflows hold about 1 KB; without aliases a text within
    /// <see cref="MaxBytes"/> always fits).
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxValueBytes { get; set; } = 1 << 20;

    /// <summary>Lists and mappings nested in one another, aliases expanded (the shipped workflows go 5 deep).</summary>
    /// <remarks>At most 1,000: YAML's loader and the walks over its nodes recurse once per level.</remarks>
    [Range(1, 1000)]
    public int MaxDepth { get; set; } = 64;
}
