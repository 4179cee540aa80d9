namespace Salsa.Chemistry;

/// <summary>Which RDKit makes fingerprints in a deployment (<c>Salsa:Rdkit:Engine</c>).</summary>
public enum RdkitEngineChoice
{
    /// <summary>
    /// The pinned release — RDKit MinimalLib from the npm lockfile, the release that made the shipped
    /// fingerprints — whatever the machine has installed; the system's librdkit serves only when it
    /// is that same release. The same bits on every machine.
    /// </summary>
    Pinned = 0,

    /// <summary>
    /// The system's librdkit, whatever its release (an operator's choice): its fingerprints carry its
    /// version and never mix with another release's. The service does not start without it.
    /// </summary>
    System = 1,
}
