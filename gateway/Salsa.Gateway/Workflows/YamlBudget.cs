using System.Globalization;
using YamlDotNet.Core;
using YamlDotNet.Core.Events;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// What a YAML text would cost to build, read from its events before any node is built: how deep
/// lists and mappings nest, and how many nodes it holds once every alias counts as the whole node
/// its anchor names (an anchor's expanded size is known when its node ends, so one pass suffices).
/// A text past <see cref="WorkflowLimits.MaxNodes"/> or <see cref="WorkflowLimits.MaxDepth"/> is
/// refused here; the representation model and the parameters' JSON built later stay within them.
/// Keys that are lists or mappings are reported as errors at their position.
/// </summary>
internal static class YamlBudget
{
    /// <summary>Checks <paramref name="yaml"/>; throws <see cref="YamlException"/> for a text that is not YAML.</summary>
    public static void Check(string yaml, string origin, WorkflowLimits limits, List<WorkflowError> errors)
    {
        var anchors = new Dictionary<string, long>(StringComparer.Ordinal);
        var open = new Stack<Collection>();
        long seen = 0; // nodes so far, aliases expanded: checked as it grows, before it can overflow
        var parser = new Parser(new StringReader(yaml));
        while (parser.MoveNext())
        {
            var current = parser.Current!;
            switch (current)
            {
                case AnchorAlias alias:
                    // An alias of an anchor not (yet) defined is YAML's own error, reported when the text is loaded.
                    Child(anchors.GetValueOrDefault(alias.Value.Value, 1), counted: false, current);
                    break;
                case YamlDotNet.Core.Events.Scalar scalar:
                    Remember(scalar, 1);
                    Child(1, counted: false, current);
                    break;
                case NodeEvent start and (MappingStart or SequenceStart):
                    if (open.Count >= limits.MaxDepth)
                    {
                        throw Beyond(origin, string.Create(CultureInfo.InvariantCulture, $"nests more than {limits.MaxDepth:N0} levels of lists and mappings"),
                            limits.MaxDepth, "levels", nameof(WorkflowLimits.MaxDepth));
                    }

                    if (open.TryPeek(out var parent) && parent.IsMapping && parent.Children % 2 == 0)
                    {
                        errors.Add(new WorkflowError((int)start.Start.Line, (int)start.Start.Column, "keys must be plain names"));
                    }

                    Count(1, current);
                    open.Push(new Collection(start, start is MappingStart));
                    break;
                case MappingEnd or SequenceEnd:
                    var ended = open.Pop();
                    Remember(ended.Start, ended.Nodes + 1);
                    Child(ended.Nodes + 1, counted: true, current);
                    break;
            }
        }

        void Remember(NodeEvent node, long size)
        {
            if (!node.Anchor.IsEmpty)
            {
                anchors[node.Anchor.Value] = size;
            }
        }

        // A node of `size` nodes ends inside the innermost open collection; `counted` when its nodes
        // were counted as they were read (a collection's), not yet (a scalar's, an alias's).
        void Child(long size, bool counted, ParsingEvent at)
        {
            if (open.TryPeek(out var parent))
            {
                parent.Nodes += size;
                parent.Children++;
            }

            if (!counted)
            {
                Count(size, at);
            }
        }

        void Count(long nodes, ParsingEvent at)
        {
            seen += nodes;
            if (seen > limits.MaxNodes)
            {
                throw Beyond(origin, string.Create(CultureInfo.InvariantCulture, $"expands to more than {limits.MaxNodes:N0} nodes by line {at.Start.Line} (an alias counts as every node of its anchor)"),
                    limits.MaxNodes, "nodes", nameof(WorkflowLimits.MaxNodes));
            }
        }
    }

    private static LimitExceededException Beyond(string origin, string what, int limit, string unit, string key) => WorkflowParser.Beyond($"{origin} {what}", limit, unit, key);

    private sealed class Collection(NodeEvent start, bool isMapping)
    {
        public NodeEvent Start { get; } = start;

        public bool IsMapping { get; } = isMapping;

        public long Nodes { get; set; }

        public int Children { get; set; }
    }
}
