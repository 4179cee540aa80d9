using System.Reflection;
using System.Runtime.InteropServices;

namespace Salsa.Hosting;

/// <summary>
/// The release this build is: one SemVer for every assembly (<c>Version</c> in Directory.Build.props),
/// with the commit it was built from. Every process shows it — <c>--version</c>, <c>GET /api/version</c>
/// and the <c>Salsa-Version</c> header on every REST and gRPC response.
/// </summary>
public static class SalsaVersion
{
    /// <summary>The response header (gRPC metadata <c>salsa-version</c>) naming the release that answered.</summary>
    public const string Header = "Salsa-Version";

    /// <summary>The contract this release serves: the v1 packages of proto/ and the v1 OpenAPI documents.</summary>
    public const string Contract = "v1";

    /// <summary>The release and the commit, e.g. <c>1.0.0+c707bb7…</c> (the assemblies' informational version).</summary>
    public static string Informational { get; } =
        typeof(SalsaVersion).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "0.0.0";

    /// <summary>The release, e.g. <c>1.0.0</c>.</summary>
    public static string Version { get; } = Informational.Split('+')[0];

    /// <summary>The commit the build was made from, when the build knew it.</summary>
    public static string? Commit { get; } = Informational.Split('+') is [_, var commit, ..] && commit.Length > 0 ? commit : null;

    /// <summary>What <c>GET /api/version</c> answers.</summary>
    public static VersionView View(string service) =>
        new(service, Version, Commit, Contract, RuntimeInformation.FrameworkDescription);

    /// <summary>
    /// A process asked only for its version (<c>--version</c>) prints <see cref="Informational"/> and
    /// stops; the host's other arguments are configuration, so this is the one word it takes.
    /// </summary>
    public static bool PrintIfAsked(IReadOnlyList<string> args, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        if (args is not ["--version"])
        {
            return false;
        }

        output.WriteLine(Informational);
        return true;
    }
}

/// <summary>The release a process is: its service, SemVer, commit, contract and runtime.</summary>
public sealed record VersionView(string Service, string Version, string? Commit, string Contract, string Runtime);
