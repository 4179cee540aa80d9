using System.Text.Json.Nodes;
using Salsa.Contracts.Common;

namespace Salsa.Contracts.Operations;

/// <summary>A clustering as a workflow table: one row per cluster, whichever algorithm made it.</summary>
public static class ClusterTable
{
    /// <summary>
    /// Where a job ran on the cluster, as a one-row table (silos joined by spaces); null when it ran
    /// in its service (no placement).
    /// </summary>
    public static JsonArray? Placement(ClusterPlacement? placement) => placement is null ? null : new JsonArray(new JsonObject
    {
        ["partitions"] = placement.Partitions,
        ["silos"] = string.Join(' ', placement.Silos),
        ["coordinator"] = placement.Coordinator,
        ["resumes"] = placement.Resumes,
        ["passes"] = placement.Passes,
        ["retries"] = placement.Retries,
        ["computeUsPerPass"] = Math.Round(placement.ComputeUsPerPass, 1),
        ["messagingUsPerPass"] = Math.Round(placement.MessagingUsPerPass, 1),
    });

    /// <summary>Size and weight of each cluster, and its centre when the centres are planar (x, y), as census points are.</summary>
    public static JsonArray Of(ClusteringResult clustering)
    {
        ArgumentNullException.ThrowIfNull(clustering);
        return new([.. Enumerable.Range(0, clustering.Clusters).Select(k =>
        {
            var row = new JsonObject { ["cluster"] = k, ["size"] = clustering.ClusterSizes[k], ["weight"] = Math.Round(clustering.ClusterWeights[k], 3) };
            if (clustering.Dimension == 2)
            {
                row["x"] = Math.Round(clustering.Centres[2 * k], 3);
                row["y"] = Math.Round(clustering.Centres[(2 * k) + 1], 3);
            }

            return (JsonNode)row;
        })]);
    }
}
