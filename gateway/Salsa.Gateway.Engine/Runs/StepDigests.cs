using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;

namespace Salsa.Gateway.Runs;

/// <summary>
/// What a succeeded step's outputs hold, as SHA-256 digests (<see cref="StepView.Digests"/>): a
/// dataset's is its content's, as its service keeps it; a job's is made of its files' (each
/// <c>name sha256</c> line, in name order); a value's is its JSON's. Read from the services that
/// hold them, each a hop of the step.
/// </summary>
internal sealed record StepDigests(IReadOnlyDictionary<string, string> Digests, IReadOnlyList<string> RdkitReleases, IReadOnlyDictionary<JobAddress, IReadOnlyList<ArtifactInfo>> Files)
{
    private const string FilesFormat = "salsa-job-files-sha256-v1";

    public static async Task<StepDigests> OfAsync(OperationSpec spec, StepOutcome outcome, StepContext context)
    {
        var digests = new SortedDictionary<string, string>(StringComparer.Ordinal);
        var rdkit = new List<string>();
        var files = new Dictionary<JobAddress, IReadOnlyList<ArtifactInfo>>();
        if (outcome.Job is { } ran)
        {
            files[ran] = await context.ArtifactsOfAsync(ran).ConfigureAwait(false);
        }

        foreach (var output in spec.Outputs)
        {
            if (output.DescribesExecution || outcome.Outputs.GetValueOrDefault(output.Name) is not { } value)
            {
                continue;
            }

            string? digest;
            if (ValueTypes.IsDataset(output.Type))
            {
                var info = await context.DatasetAsync(spec.Service, value.GetValue<string>()).ConfigureAwait(false);
                digest = info.Sha256;
                if (info.RdkitVersion is { Length: > 0 } release && !rdkit.Contains(release))
                {
                    rdkit.Add(release);
                }
            }
            else if (ValueTypes.IsJob(output.Type))
            {
                var job = JobAddress.FromJson(value);
                if (!files.TryGetValue(job, out var stored))
                {
                    files[job] = stored = await context.ArtifactsOfAsync(job).ConfigureAwait(false);
                }

                digest = OfFiles(stored);
            }
            else
            {
                digest = Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(value.ToJsonString())));
            }

            if (!string.IsNullOrEmpty(digest))
            {
                digests[output.Name] = digest;
            }
        }

        return new(digests, rdkit, files);
    }

    /// <summary>The digest of a job's files: null when one of them has none (stored before digests were kept).</summary>
    public static string? OfFiles(IEnumerable<ArtifactInfo> files)
    {
        var text = new StringBuilder(FilesFormat).Append('\n');
        foreach (var file in files.OrderBy(f => f.Name, StringComparer.Ordinal))
        {
            if (file.Sha256.Length == 0)
            {
                return null;
            }

            text.Append(CultureInfo.InvariantCulture, $"{file.Name} {file.Sha256}\n");
        }

        return Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(text.ToString())));
    }
}
