using System.Text.RegularExpressions;

namespace Salsa.Services.Tests.Architecture;

/// <summary>
/// One top-level public type per file, named as the file is found: a class, struct, interface or
/// delegate has a file of its own. Records and enums may share it as the messages it speaks — a
/// message family (a view and its rows, a request and its parts) — at most four public types in all.
/// </summary>
public sealed partial class PublicTypesPerFileTests
{
    private const int MaxFamily = 4;

    // A top-level declaration starts at the first column (file-scoped namespaces everywhere).
    [GeneratedRegex(@"^public\s+(?:(?:sealed|static|abstract|readonly|partial|unsafe|ref|new)\s+)*(?<kind>record\s+struct|record\s+class|record|class|struct|interface|enum|delegate)\b", RegexOptions.Multiline)]
    private static partial Regex PublicType();

    [Fact]
    public void ProductionFiles_HoldOnePublicTypeAndAtMostItsMessages()
    {
        var crowded = new List<string>();
        foreach (var (file, relative) in ProductionSources.Files(".cs"))
        {
            var kinds = PublicType().Matches(File.ReadAllText(file)).Select(m => m.Groups["kind"].Value).ToList();
            var behaviour = kinds.Count(k => k is "class" or "struct" or "interface" or "delegate" or "record class");
            if (behaviour > 1 || kinds.Count > MaxFamily)
            {
                crowded.Add($"{relative}: {string.Join(", ", kinds)}");
            }
        }

        Assert.True(crowded.Count == 0, "Give each class, struct, interface and delegate a file of its own (records and enums may join it, four public types at most):\n" + string.Join('\n', crowded));
    }

    [Fact]
    public void PublicType_FindsEveryKindOfTopLevelDeclaration()
    {
        const string Source = """
            public sealed class A { }
            public readonly record struct B(int X);
            public enum C { One }
            public static partial class D { }
            public delegate void E();
                public class Nested { }
            internal sealed class F { }
            """;

        Assert.Equal(["class", "record struct", "enum", "class", "delegate"], PublicType().Matches(Source).Select(m => m.Groups["kind"].Value));
    }
}
