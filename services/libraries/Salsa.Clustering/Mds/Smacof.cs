using System.Threading.Channels;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Mds;

/// <summary>
/// Weighted SMACOF multidimensional scaling (de Leeuw; Borg &amp; Groenen ch. 8) to 2 or 3 dimensions:
/// minimises σ(X) = Σ_{i&lt;j} w_ij (d_ij(X) − δ_ij)² with w_ij = w_i·w_j by Guttman transforms
/// X ← V⁺·B(X)·X, each of which never raises the stress. Runs as SPMD ranks on Salsa.Ccr, rows of
/// B(X)·X owned by fixed blocks: the same bits for any number of ranks.
/// </summary>
/// <remarks>
/// For product weights the weighted Laplacian is V = W·diag(w) − w·wᵀ (W = Σ w): a diagonal plus rank
/// one. Its pseudo-inverse applied to B(X)·X, whose rows sum to zero, is closed-form —
/// x'_i = (B(X)·X)_i / (w_i·W) — which is exactly the solution conjugate gradient would converge to,
/// without CG's iterations or their rounding. With all weights 1 it is the usual X' = B(X)·X / n.
/// An item of weight 0 takes no part in the stress; it is placed each iteration by the same
/// single-point majorisation step against the others (out-of-sample placement).
/// </remarks>
public static class Smacof
{
    /// <summary>Embeds the items; <c>weights</c> are per item (w_ij = w_i·w_j), all 1 when null, at least two positive.</summary>
    public static SmacofResult Run(Dissimilarities dissimilarities, SmacofOptions options, double[]? weights = null, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(dissimilarities);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate(dissimilarities.Count);
        var validated = PointWeights.Validate(weights, dissimilarities.Count);
        if (validated.Count(w => w > 0) < 2)
        {
            throw new ClusteringInputException("At least two items need a positive weight: a single weighted item has no dissimilarity to fit.", nameof(weights));
        }

        return new SmacofRun(dissimilarities, options, validated, progress).Execute(cancellationToken);
    }

    public static Task<SmacofResult> RunAsync(Dissimilarities dissimilarities, SmacofOptions options, double[]? weights = null, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(dissimilarities, options, weights, progress, cancellationToken), cancellationToken);
}
