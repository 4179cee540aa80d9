using System.Xml.Linq;
using Salsa.Testing;

namespace Salsa.Services.Tests.Architecture;

/// <summary>
/// The layout shows what runs, and the project graph keeps to it (services/README.md): deployables
/// at <c>services/&lt;Name&gt;</c> and <c>gateway/</c>, libraries at <c>services/libraries/</c>;
/// deployables build on libraries, libraries never on deployables, and the compute libraries
/// know nothing of ASP.NET Core or the store. Read from the project files, so a new reference that
/// breaks a rule fails here, not in review.
/// </summary>
public sealed class ProjectGraphTests
{
    /// <summary>The algorithms and data: runnable in any process, a benchmark or a test.</summary>
    private static readonly string[] ComputeLibraries = ["Salsa.Ccr", "Salsa.Chemistry", "Salsa.Clustering", "Salsa.DataFiles", "Salsa.Rendering"];

    /// <summary>What every service is built on.</summary>
    private static readonly string[] PlatformLibraries = ["Salsa.Grid", "Salsa.Contracts", "Salsa.Hosting", "Salsa.Hosting.Clustering", "Salsa.Operations", "Salsa.Settings", "Salsa.Store"];

    private static readonly string[] WebOrStorePackages = ["Microsoft.AspNetCore", "Grpc.AspNetCore", "Npgsql", "Microsoft.Data.Sqlite", "SQLitePCLRaw"];

    private static readonly Lazy<IReadOnlyDictionary<string, ProjectFile>> s_projects = new(Load);

    private static IReadOnlyDictionary<string, ProjectFile> Projects => s_projects.Value;

    [Fact]
    public void Layout_EveryProjectUnderServices_IsADeployableOrAListedLibrary()
    {
        var libraries = Projects.Values.Where(p => p.Folder == "services/libraries").Select(p => p.Name).Order().ToList();
        Assert.Equal([.. ComputeLibraries.Concat(PlatformLibraries).Order()], libraries);
        Assert.All(Projects.Values.Where(p => p.Path.StartsWith("services/", StringComparison.Ordinal)), p =>
            Assert.True(p.Folder is "services" or "services/libraries", $"{p.Path} is neither a deployable (services/<Name>) nor a library (services/libraries/<Name>)."));
        Assert.All(Deployables, p => Assert.True(p.IsWeb, $"{p.Path} is a deployable but not an ASP.NET Core application."));
    }

    [Fact]
    public void Deployables_ReferenceOnlyLibraries()
    {
        foreach (var project in Deployables)
        {
            foreach (var reference in project.References)
            {
                // The gateway hosts every service in its own process in the embedded default, so it
                // references their projects to start them (Services/HostedServices.cs).
                var allowed = IsLibrary(reference) || (project.Name == "Salsa.Gateway" && IsService(reference));
                Assert.True(allowed, $"{project.Path} references {reference}, which is not a library.");
            }
        }
    }

    [Fact]
    public void WorkflowOperations_ReachNoService_EvenIndirectly()
    {
        // What a workflow step calls is the services' client side: contracts, clients and the
        // algorithms' defaults, never a service's server code.
        Assert.DoesNotContain(Closure("Salsa.Operations"), p => IsService(p.Name));
    }

    [Fact]
    public void RunEngine_ReachesNoService_EvenIndirectly()
    {
        // The gateway's run engine calls services through Salsa.Operations (their client side) and
        // hosts them only through what its host gives it (EmbeddedServices).
        Assert.DoesNotContain(Closure("Salsa.Gateway.Engine"), p => IsService(p.Name));
    }

    [Fact]
    public void Services_AreReferencedOnlyByTheGatewaysHost()
    {
        // Embedding every service in one process (the default) goes through one project: the
        // gateway's process, gateway/Salsa.Gateway, whose Services/HostedServices.cs lists them.
        var referrers = Projects.Values.Where(p => p.References.Any(IsService)).Select(p => p.Name).ToList();
        Assert.Equal(["Salsa.Gateway"], referrers);
        var services = Projects.Values.Where(p => p.Folder == "services").Select(p => p.Name).ToHashSet(StringComparer.Ordinal);
        var gateway = Path.Combine(Root, "gateway", "Salsa.Gateway");
        var users = Directory.EnumerateFiles(gateway, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal) && !f.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Where(f => File.ReadLines(f).Any(line => line.StartsWith("using ", StringComparison.Ordinal) && services.Contains(line["using ".Length..].TrimEnd(';'))))
            .Select(f => Path.GetRelativePath(gateway, f).Replace('\\', '/'))
            .ToList();
        Assert.Equal(["Services/HostedServices.cs"], users);
    }

    [Fact]
    public void Libraries_NeverReferenceDeployables()
    {
        foreach (var library in Libraries)
        {
            Assert.All(library.References, r => Assert.True(IsLibrary(r), $"{library.Path} references the deployable {r}."));
        }
    }

    [Fact]
    public void ComputeLibraries_ReferenceNeitherAspNetCoreNorTheStore_EvenIndirectly()
    {
        foreach (var name in ComputeLibraries)
        {
            foreach (var project in Closure(name))
            {
                Assert.True(ComputeLibraries.Contains(project.Name), $"{name} depends on {project.Name}, which is not a compute library.");
                Assert.False(project.IsWeb, $"{project.Path} (reached from {name}) is an ASP.NET Core project.");
                Assert.DoesNotContain(project.Frameworks, f => f.StartsWith("Microsoft.AspNetCore", StringComparison.Ordinal));
                Assert.DoesNotContain(project.Packages, p => WebOrStorePackages.Any(w => p.StartsWith(w, StringComparison.Ordinal)));
            }
        }
    }

    [Fact]
    public void Hosting_DoesNotDependOnTheAlgorithms()
    {
        // Where services meet the algorithms is Salsa.Hosting.Clustering, used by the services that cluster.
        Assert.DoesNotContain(Closure("Salsa.Hosting"), p => p.Name is "Salsa.Clustering" or "Salsa.Rendering");
    }

    [Fact]
    public void ServicesReadme_MapsEveryProject()
    {
        var readme = File.ReadAllText(Path.Combine(Root, "services", "README.md"));
        Assert.All(Projects.Values.Where(p => p.Path.StartsWith("services/", StringComparison.Ordinal)), p =>
            Assert.Contains($"`{p.Name}`", readme, StringComparison.Ordinal));
    }

    /// <summary>The services and the gateway's process; the gateway's run engine (gateway/Salsa.Gateway.Engine) is its library.</summary>
    private static IEnumerable<ProjectFile> Deployables =>
        Projects.Values.Where(p => p.Folder == "services" || p.Path == "gateway/Salsa.Gateway/Salsa.Gateway.csproj");

    private static IEnumerable<ProjectFile> Libraries => Projects.Values.Where(p => p.Folder == "services/libraries");

    private static bool IsLibrary(string name) => Projects.TryGetValue(name, out var p) && (p.Folder == "services/libraries" || p.Name == "Salsa.Gateway.Engine");

    private static bool IsService(string name) => Projects.TryGetValue(name, out var p) && p.Folder == "services";

    /// <summary>The project and every project it reaches through references.</summary>
    private static IEnumerable<ProjectFile> Closure(string name)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var pending = new Stack<string>([name]);
        while (pending.TryPop(out var next))
        {
            if (seen.Add(next))
            {
                var project = Projects[next];
                yield return project;
                foreach (var reference in project.References)
                {
                    pending.Push(reference);
                }
            }
        }
    }

    private static string Root => Repository.Root;

    private static Dictionary<string, ProjectFile> Load()
    {
        var projects = new Dictionary<string, ProjectFile>(StringComparer.Ordinal);
        foreach (var folder in new[] { "services", "gateway" })
        {
            foreach (var file in Directory.EnumerateFiles(Path.Combine(Root, folder), "*.csproj", SearchOption.AllDirectories))
            {
                var relative = Path.GetRelativePath(Root, file).Replace('\\', '/');
                if (relative.Contains("/bin/", StringComparison.Ordinal) || relative.Contains("/obj/", StringComparison.Ordinal) || relative.Contains("node_modules", StringComparison.Ordinal))
                {
                    continue;
                }

                var xml = XDocument.Load(file);
                string[] Items(string element) => [.. xml.Descendants(element).Select(e => (string?)e.Attribute("Include")).OfType<string>()];
                var name = Path.GetFileNameWithoutExtension(file);
                projects[name] = new ProjectFile(
                    name,
                    relative,
                    Path.GetDirectoryName(Path.GetDirectoryName(relative))!.Replace('\\', '/'),
                    ((string?)xml.Root!.Attribute("Sdk"))?.Contains("Web", StringComparison.Ordinal) == true,
                    [.. Items("ProjectReference").Select(r => Path.GetFileNameWithoutExtension(r.Replace('\\', '/')))],
                    Items("PackageReference"),
                    Items("FrameworkReference"));
            }
        }

        return projects;
    }

    private sealed record ProjectFile(string Name, string Path, string Folder, bool IsWeb, string[] References, string[] Packages, string[] Frameworks);
}
