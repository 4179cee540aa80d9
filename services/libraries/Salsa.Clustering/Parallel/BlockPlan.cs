namespace Salsa.Clustering.Parallel;

/// <summary>
/// Points cut into fixed blocks, independent of the number of ranks. Each rank owns a contiguous
/// run of blocks; partial sums are kept per block and folded in block order, so results are the
/// same bits for 1, 2, 3 or any number of ranks.
/// </summary>
internal sealed class BlockPlan
{
    public const int DefaultBlockSize = 2048;

    // Enough blocks that ranks get equal shares (an extra block is under 1% of a rank's work at 2
    // ranks, under 4% at 8), few enough that the partials stay small beside the data.
    private const int TargetBlocks = 256;
    private const int MinimumBlockSize = 64;

    // Every pass clears each block's partial and every rank folds all of them: a model of 1,024
    // dimensions × 12 centres (fingerprints) makes a 98 KB partial, and at 32 MiB (105 blocks of
    // 40,000 fingerprints) clearing and folding 10 MB per pass was a third of binary annealing's time.
    // 4 MiB (13 blocks there) keeps the partials in cache; few-dimensional models never reach it.
    private const long PartialBudgetBytes = 4L << 20;

    public BlockPlan(int count, int blockSize = DefaultBlockSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, 1);
        Count = count;
        BlockSize = blockSize;
        Blocks = (count + blockSize - 1) / blockSize;
    }

    /// <summary>
    /// The plan for <paramref name="count"/> points whose per-block partials hold
    /// <paramref name="partialLength"/> doubles: <paramref name="blockSize"/> when given, otherwise about
    /// 256 blocks of 64–2048 points, fewer when the partials (double-buffered) would pass 4 MiB. It
    /// depends on the data and the model size only — never on the number of ranks — so results stay
    /// the same bits for any number of ranks.
    /// </summary>
    public static BlockPlan For(int count, int partialLength, int? blockSize = null)
    {
        if (blockSize is { } fixedSize)
        {
            return new BlockPlan(count, fixedSize);
        }

        var size = Math.Clamp((count + TargetBlocks - 1) / TargetBlocks, MinimumBlockSize, DefaultBlockSize);
        size = (size + MinimumBlockSize - 1) / MinimumBlockSize * MinimumBlockSize;
        while (size < count && (long)((count + size - 1) / size) * partialLength * 2 * sizeof(double) > PartialBudgetBytes)
        {
            size *= 2;
        }

        return new BlockPlan(count, size);
    }

    public int Count { get; }

    public int BlockSize { get; }

    public int Blocks { get; }

    public (int Start, int End) Block(int block) => (block * BlockSize, Math.Min(Count, (block + 1) * BlockSize));

    /// <summary>The blocks rank <paramref name="rank"/> of <paramref name="size"/> computes: [First, End).</summary>
    public (int First, int End) BlocksOf(int rank, int size) =>
        ((int)((long)Blocks * rank / size), (int)((long)Blocks * (rank + 1) / size));

    /// <summary>The points rank <paramref name="rank"/> owns: [Start, End).</summary>
    public (int Start, int End) PointsOf(int rank, int size)
    {
        var (first, end) = BlocksOf(rank, size);
        return (Math.Min(Count, first * BlockSize), Math.Min(Count, end * BlockSize));
    }
}
