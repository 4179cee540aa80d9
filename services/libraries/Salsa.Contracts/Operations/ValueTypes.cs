namespace Salsa.Contracts.Operations;

/// <summary>
/// What flows between steps. A step's input accepts an output of the same type; the checks run
/// when the workflow loads, so a wrong wiring is an error with its line, not a failed run.
/// </summary>
#pragma warning disable CA1720 // The names are what workflow authors read.
public static class ValueTypes
{
    /// <summary>A census dataset (latitude/longitude, population) as imported.</summary>
    public const string CensusDataset = "census-dataset";

    /// <summary>Dense, weighted points (e.g. a census query projected to planar km).</summary>
    public const string Points = "points";

    /// <summary>A compound set (ids and SMILES).</summary>
    public const string Compounds = "compounds";

    /// <summary>A binary fingerprint dataset of one fingerprint type.</summary>
    public const string Fingerprints = "fingerprints";

    /// <summary>A finished clustering job with per-point assignments: <c>{ service, jobId }</c>.</summary>
    public const string Clustering = "clustering";

    /// <summary>A finished Butina job: <c>{ service, jobId }</c>.</summary>
    public const string Butina = "butina";

    /// <summary>A finished MDS job: <c>{ service, jobId }</c>.</summary>
    public const string Embedding = "embedding";

    /// <summary>Point indices into a dataset.</summary>
    public const string Indices = "indices";

    /// <summary>Numbers, e.g. weights of the items an index list names.</summary>
    public const string Numbers = "numbers";

    public const string Integer = "integer";

    public const string Number = "number";

    /// <summary>Rows of flat objects (a cluster table, search hits).</summary>
    public const string Table = "table";

    /// <summary>A word or a line of text: a version, a name.</summary>
    public const string Text = "text";

    /// <summary>A finished rendering job whose files are artifacts.</summary>
    public const string Rendering = "rendering";

    /// <summary>Whether a value of <paramref name="type"/> is the id of a stored dataset (what it holds is the dataset's content).</summary>
    public static bool IsDataset(string type) => type is CensusDataset or Points or Compounds or Fingerprints;

    /// <summary>Whether a value of <paramref name="type"/> names a finished service job (what it holds is the files the job stored).</summary>
    public static bool IsJob(string type) => type is Clustering or Butina or Embedding or Rendering;
}
