using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Salsa.DataFiles;
using Salsa.Settings;

namespace Salsa.Hosting.Datasets;

/// <summary>The shipped data sets for services that import them (census, chem).</summary>
public static class ShippedData
{
    /// <summary>Configuration key naming the data folder.</summary>
    public const string DirectoryKey = "Salsa:DataDirectory";

    /// <summary>Registers the <see cref="DataDirectory"/> the host imports from.</summary>
    public static WebApplicationBuilder AddShippedData(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Services.AddSalsaOptions<ShippedDataOptions>(null);
        builder.Services.TryAddSingleton(sp => sp.GetRequiredService<IOptions<ShippedDataOptions>>().Value.DataDirectory is { Length: > 0 } configured
            ? new DataDirectory(configured)
            : DataDirectory.Default);
        return builder;
    }
}
