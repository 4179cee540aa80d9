namespace Salsa.Hosting.Datasets;

/// <summary>Metadata a dataset keeps about how it was made, read back into its views.</summary>
public static class DatasetMetadataKeys
{
    /// <summary>The RDKit release that made a fingerprint dataset's bits (and a compounds dataset's fingerprints): <c>2026.09.1</c>.</summary>
    public const string RdkitVersion = "rdkit_version";

    /// <summary>How RDKit made a fingerprint dataset's bits: the call and its options (<c>get_morgan_fp {"radius":2,"nBits":1024}</c>).</summary>
    public const string FingerprintOptions = "fingerprint_options";
}
