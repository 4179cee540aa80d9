using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using Microsoft.ClearScript;
using Salsa.Ccr;
using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>Calls into MinimalLib's engines: batches on every engine at once, each molecule timed, a failed engine replaced.</summary>
public sealed partial class Rdkit
{
    /// <summary>
    /// The answer line of every molecule (one line each: a molblock's line breaks travel as U+001E),
    /// in batches on every engine at once: Salsa.Ccr ranks on <paramref name="dispatcher"/> or this
    /// instance's own, each on one engine, taking batches in turn (a molecule's cost varies a
    /// thousandfold). A molecule that took longer than its budget, or on which the engine failed,
    /// gets <c>!</c> and why; its engine is replaced, and the rest of its batch goes on.
    /// </summary>
    private async Task<string[]> AnswerAllAsync(string[] molecules, Func<RdkitEngine, string, RdkitProgress, Task<string>> call, Dispatcher? dispatcher, CancellationToken cancellationToken)
    {
        var answers = new string[molecules.Length];
        if (molecules.Length == 0)
        {
            return answers;
        }

        var batches = new ConcurrentQueue<int[]>(Enumerable.Range(0, molecules.Length).Chunk(BatchSize));
        ObjectDisposedException.ThrowIf(_disposed, this);
        await Spmd.RunAsync(Math.Clamp(batches.Count, 1, MaxEngines), async _ =>
        {
            await UseAsync(async slot =>
            {
                while (batches.TryDequeue(out var batch))
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    await AnswerBatchAsync(slot, molecules, batch, answers, call, cancellationToken).ConfigureAwait(false);
                }

                return true;
            }, cancellationToken).ConfigureAwait(false);
        }, new SpmdOptions { Dispatcher = dispatcher ?? _dispatcher.Value, CancellationToken = cancellationToken }).ConfigureAwait(false);
        return answers;
    }

    private async Task AnswerBatchAsync(EngineSlot slot, string[] molecules, int[] batch, string[] answers, Func<RdkitEngine, string, RdkitProgress, Task<string>> call, CancellationToken cancellationToken)
    {
        var rest = batch;
        while (rest.Length > 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var engine = await slot.EngineAsync().ConfigureAwait(false);
            var progress = new RdkitProgress(_options.MoleculeBudget);
            string answer;
            try
            {
                answer = await call(engine, JoinLines(rest.Select(i => molecules[i])), progress).ConfigureAwait(false);
            }
            catch (ScriptInterruptedException) when (progress.TimedOut)
            {
                // The molecule that ran over is refused; the ones before it went with the stopped
                // call and are asked again, on a new engine, with the ones after it.
                var over = progress.Current;
                answers[rest[over]] = "!" + TookTooLong();
                slot.Replace();
                rest = [.. rest[..over], .. rest[(over + 1)..]];
                continue;
            }
            catch (ScriptEngineException e)
            {
                var failed = Math.Max(progress.Current, 0);
                answers[rest[failed]] = "!" + Failed(e.Message);
                slot.Replace();
                rest = rest[(failed + 1)..];
                continue;
            }

            var lines = answer.Split('\n');
            var done = 0;
            for (; done < lines.Length && !lines[done].StartsWith("!!", StringComparison.Ordinal); done++)
            {
                answers[rest[done]] = lines[done];
            }

            if (done < lines.Length)
            {
                answers[rest[done]] = "!" + Failed(lines[done][2..]);
                slot.Replace();
            }
            else if (done != rest.Length)
            {
                throw new InvalidOperationException($"RDKit's script answered {done} lines for {rest.Length} molecules.");
            }

            rest = rest[Math.Min(done + 1, rest.Length)..];
        }
    }

    /// <summary>One molecule's answer (which may span lines), or a <see cref="MoleculeException"/> with why RDKit has none.</summary>
    private Task<string> AnswerOneAsync(string molecule, Func<RdkitEngine, string, RdkitProgress, Task<string>> call, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(molecule);
        if (Unreadable(molecule) is { } unread)
        {
            throw new MoleculeException($"RDKit is not asked about '{Shorten(molecule)}': {unread}.");
        }

        return UseAsync(async slot =>
        {
            var engine = await slot.EngineAsync().ConfigureAwait(false);
            var progress = new RdkitProgress(_options.MoleculeBudget);
            string answer;
            try
            {
                answer = await call(engine, Line(molecule), progress).ConfigureAwait(false);
            }
            catch (ScriptInterruptedException) when (progress.TimedOut)
            {
                slot.Replace();
                answer = "!" + TookTooLong();
            }
            catch (ScriptEngineException e)
            {
                slot.Replace();
                answer = "!" + Failed(e.Message);
            }

            if (answer.StartsWith("!!", StringComparison.Ordinal))
            {
                slot.Replace();
                answer = "!" + Failed(answer[2..]);
            }

            return answer.StartsWith('!') ? throw new MoleculeException($"RDKit cannot read the SMILES '{Shorten(molecule)}': {answer[1..]}") : answer;
        }, cancellationToken);
    }

    /// <summary>Runs <paramref name="work"/> with an engine of this instance's share (made when none is idle), handing it back after, or away if it broke.</summary>
    private async Task<T> UseAsync<T>(Func<EngineSlot, Task<T>> work, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        await _engines.WaitAsync(cancellationToken).ConfigureAwait(false);
        var slot = new EngineSlot(this);
        try
        {
            return await work(slot).ConfigureAwait(false);
        }
        finally
        {
            slot.Release();
            _engines.Release();
        }
    }

    /// <summary>The engine one caller holds: taken idle or made on first need, replaced when it breaks.</summary>
    private sealed class EngineSlot(Rdkit owner)
    {
        private RdkitEngine? _engine;

        public async Task<RdkitEngine> EngineAsync()
        {
            if (_engine is null)
            {
                _engine = owner._idle.TryTake(out var idle) ? idle : await RdkitEngine.CreateAsync(owner._files.Value).ConfigureAwait(false);
            }

            return _engine;
        }

        /// <summary>Disposes the engine (it broke); the next call makes or takes another.</summary>
        public void Replace()
        {
            _engine?.Dispose();
            _engine = null;
        }

        public void Release()
        {
            if (_engine is { Broken: true })
            {
                Replace();
            }
            else if (_engine is not null)
            {
                owner._idle.Add(_engine);
                _engine = null;
            }
        }
    }

    private string TookTooLong() => string.Create(CultureInfo.InvariantCulture,
        $"RDKit took longer than {_options.MoleculeBudget.TotalSeconds:0.###} s on it, the most one molecule may take here ({RdkitOptions.Section}:MoleculeBudget)");

    /// <summary>Why RDKit failed on a molecule, in words: the engine's own error behind it.</summary>
    private static string Failed(string error) =>
        error.Contains("call stack", StringComparison.OrdinalIgnoreCase)
            ? "RDKit ran out of stack on it: a molecule deeper than RDKit's stack here allows (a chain of some 100,000 atoms)"
            : $"RDKit failed on it ({error.Trim()})";

    /// <summary>
    /// Of <paramref name="indices"/>, the molecules RDKit is asked about; the others get why not in
    /// <paramref name="errors"/> (<see cref="Unreadable"/>).
    /// </summary>
    private static int[] Readable(IReadOnlyList<string> molecules, IEnumerable<int> indices, string?[] errors)
    {
        var readable = new List<int>();
        foreach (var i in indices)
        {
            if (Unreadable(molecules[i]) is { } reason)
            {
                errors[i] = reason;
            }
            else
            {
                readable.Add(i);
            }
        }

        return [.. readable];
    }

    /// <summary>
    /// Why RDKit is not asked about a molecule at all: text no molecule needs — a SMILES past
    /// <see cref="MaxSmilesLength"/>, a molblock past <see cref="MaxMolBlockLength"/>, a NUL (which
    /// would end the text early inside RDKit). What a molecule costs is bounded by its time.
    /// </summary>
    private static string? Unreadable(string molecule)
    {
        if (molecule.Contains('\0', StringComparison.Ordinal))
        {
            return "the molecule's text holds a NUL character";
        }

        var block = molecule.AsSpan().IndexOfAny('\n', '\r') >= 0;
        var limit = block ? MaxMolBlockLength : MaxSmilesLength;
        return molecule.Length <= limit ? null
            : string.Create(CultureInfo.InvariantCulture, $"{(block ? "the molblock" : "the SMILES")} has {molecule.Length:N0} characters; at most {limit:N0} are read here");
    }

    private static void Store(string line, int molecule, bool morgan, bool maccs, Dictionary<FingerprintType, ulong[]> words, string?[] errors)
    {
        if (line.StartsWith('!'))
        {
            errors[molecule] = line[1..];
            return;
        }

        var parts = line.Split(' ');
        var part = 0;
        if (morgan)
        {
            Parse(parts[part++], FingerprintType.Ecfp4, molecule, words);
        }

        if (maccs)
        {
            Parse(parts[part], FingerprintType.Maccs, molecule, words);
        }
    }

    private static void Parse(string hex, FingerprintType type, int molecule, Dictionary<FingerprintType, ulong[]> words) =>
        CompoundSet.ParseHex(hex, type, words[type].AsSpan(molecule * type.Words, type.Words), molecule + 1, "RDKit");

    private static string JoinLines(IEnumerable<string> molecules)
    {
        var text = new StringBuilder();
        var first = true;
        foreach (var molecule in molecules)
        {
            if (!first)
            {
                text.Append('\n');
            }

            text.Append(Line(molecule));
            first = false;
        }

        return text.ToString();
    }

    /// <summary>A molecule as one line: a molblock's line breaks travel as U+001E (the script restores them); a SMILES has none.</summary>
    private static string Line(string smiles) => smiles.Contains('\n') || smiles.Contains('\r') ? smiles.ReplaceLineEndings("\u001e") : smiles;

    private static string Shorten(string text) => text.Length <= 80 ? text : string.Concat(text.AsSpan(0, 77), "...");
}
