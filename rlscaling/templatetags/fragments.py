from django import template

from rlscaling.fragments import block_digest, render_cards, render_fragment

register = template.Library()


@register.simple_tag
def cards(items, template_name, name, **options):
    """`{% cards page.object_list "citations/includes/paper_item.html" "paper" show_foot=True %}`:
    one card per item, from the shared cache where one is kept (rlscaling/fragments.py)."""
    return render_cards(items, template_name, name, **options)


class FragmentNode(template.Node):
    def __init__(self, name, vary, nodelist, tokens):
        self.name, self.vary, self.nodelist, self.tokens = name, vary, nodelist, tokens
        self.digest = None

    def render(self, context):
        if self.digest is None:  # once per loaded template, on first use (includes load then)
            self.digest = block_digest(self.tokens, self.nodelist)
        vary = [value.resolve(context) for value in self.vary]
        return render_fragment(self.name, self.digest, vary, lambda: self.nodelist.render(context))


@register.tag
def fragment(parser, token):
    """`{% fragment "hub-timeline" paper.pk %}...{% endfragment %}`: the block rendered once per
    content generation for these values, and shared by every request, process and server
    (rlscaling/fragments.py). What the block shows must follow from the values and the
    published content alone: nothing of the request or the user (no forms, no nonce, no
    `perms`)."""
    bits = token.split_contents()
    if len(bits) < 2 or bits[1][0] not in "\"'" or bits[1][0] != bits[1][-1]:
        raise template.TemplateSyntaxError(
            f"{bits[0]} takes a quoted name, then the values it varies with."
        )
    pending = list(parser.tokens)  # reversed: the block's tokens are those parse() takes
    nodelist = parser.parse(("endfragment",))
    tokens = pending[len(parser.tokens) :]
    parser.delete_first_token()
    vary = [parser.compile_filter(bit) for bit in bits[2:]]
    return FragmentNode(bits[1][1:-1], vary, nodelist, tokens)
