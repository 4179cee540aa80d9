using Salsa.Settings;

namespace Salsa.Hosting.Datasets;

/// <summary>Where the shipped data sets are: <c>Salsa:DataDirectory</c>; <c>SALSA_DATA</c> and discovery apply when it is absent.</summary>
public sealed class ShippedDataOptions
{
    [ConfigurationPath(ShippedData.DirectoryKey)]
    public string? DataDirectory { get; set; }
}
