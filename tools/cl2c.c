/* Turns an OpenCL C source file into a C translation unit that defines
 *   const char NAME[]        (the text, NUL-terminated)
 *   const size_t NAME_len     (its length without the NUL)
 * Usage: cl2c NAME input.cl output.c [SHOWN]
 * With SHOWN (the file's name in the tree, e.g. cl/radix/base.cl) the text begins with
 * #line 1 "SHOWN": a program is several such texts one after another, and a compiler's messages
 * then name the file and its own line rather than a line of the whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s NAME input.cl output.c [SHOWN]\n", argv[0]);
        return 1;
    }
    char line[1100] = "";
    if (argc == 5 &&
        (strpbrk(argv[4], "\"\\\n") ||
         snprintf(line, sizeof line, "#line 1 \"%s\"\n", argv[4]) >= (int)sizeof line)) {
        fprintf(stderr, "cl2c: %s: not a name for #line (too long, or a quote, backslash or "
                "newline in it)\n", argv[4]);
        return 1;
    }
    FILE *in = fopen(argv[2], "rb");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    FILE *out = fopen(argv[3], "wb");
    if (!out) {
        perror(argv[3]);
        fclose(in);
        return 1;
    }
    fprintf(out, "/* generated from %s by cl2c: do not edit */\n#include <stddef.h>\n", argv[2]);
    fprintf(out, "const char %s[] = {\n", argv[1]);
    size_t len = 0;
    for (const char *p = line; *p; p++)
        fprintf(out, "%d,%s", (unsigned char)*p, ++len % 24 == 0 ? "\n" : "");
    int c;
    while ((c = fgetc(in)) != EOF) {
        fprintf(out, "%d,", c);
        if (++len % 24 == 0)
            fputc('\n', out);
    }
    fprintf(out, "0};\nconst size_t %s_len = %zu;\n", argv[1], len);
    int bad = ferror(in) || ferror(out);
    fclose(in);
    if (fclose(out) != 0 || bad) {
        fprintf(stderr, "cl2c: I/O error\n");
        return 1;
    }
    return 0;
}
